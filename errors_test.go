package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// memFS returns an in-memory filesystem holding files (name → content) under "/".
func memFS(t testing.TB, files map[string]string) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, content := range files {
		if err := afero.WriteFile(fsys, "/"+name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fsys
}

// readFile returns a file's content, or "<absent>".
func readFile(t testing.TB, fsys afero.Fs, name string) string {
	t.Helper()
	b, err := afero.ReadFile(fsys, "/"+name)
	if errors.Is(err, fs.ErrNotExist) {
		return "<absent>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// applyErr applies payload to files and returns the error, checking that nothing was
// written.
func applyErr(t *testing.T, files map[string]string, payload string) error {
	t.Helper()
	fsys := memFS(t, files)
	_, err := applypatch.Apply(context.Background(), fsys, payload, nil)
	if err == nil {
		t.Fatal("Apply succeeded; want an error")
	}
	for name, content := range files {
		if got := readFile(t, fsys, name); got != content {
			t.Errorf("%s changed to %q by a rejected patch", name, got)
		}
	}
	return err
}

// matches reports whether err's tree holds an error of target's type (errors.As) and, for
// a type with reasons, one that errors.Is matches with target's reason.
func matches(err, target error) bool {
	if !errors.As(err, reflect.New(reflect.TypeOf(target)).Interface()) {
		return false
	}
	if _, ok := target.(interface{ Is(error) bool }); ok {
		return errors.Is(err, target)
	}
	return true
}

// TestErrorTypes checks that each error the pipeline returns is found by errors.As, and
// by errors.Is with its reason where its type has reasons, also when wrapped, and is not
// mistaken for another type.
func TestErrorTypes(t *testing.T) {
	upd := func(body string) string {
		return "*** Begin Patch\n*** Update File: a.txt\n" + body + "*** End Patch\n"
	}
	files := map[string]string{"a.txt": "one\ntwo\none\n", "bin": "\x00"}
	for _, tc := range []struct {
		name   string
		err    error
		target error
		check  func(t *testing.T, err error)
	}{
		{"parse", applyErr(t, files, "*** Begin Patch\n"), &applypatch.ParseError{}, func(t *testing.T, err error) {
			var pe *applypatch.ParseError
			if !errors.As(err, &pe) || pe.Line != 1 || pe.Text != "*** Begin Patch" {
				t.Errorf("ParseError = %+v", pe)
			}
		}},
		{"match not found", applyErr(t, files, upd("@@\n-three\n+3\n")), &applypatch.MatchError{}, func(t *testing.T, err error) {
			var me *applypatch.MatchError
			if !errors.As(err, &me) || me.Reason != applypatch.MatchNotFound || me.Path != "a.txt" || me.Hunk != 1 || me.PayloadLine != 3 {
				t.Errorf("MatchError = %+v", me)
			}
		}},
		{"match ambiguous", applyErr(t, files, upd("@@\n-one\n+1\n")), &applypatch.MatchError{}, func(t *testing.T, err error) {
			var me *applypatch.MatchError
			if !errors.As(err, &me) || me.Reason != applypatch.MatchAmbiguous || fmt.Sprint(me.Lines) != "[1 3]" {
				t.Errorf("MatchError = %+v", me)
			}
		}},
		{"file missing", applyErr(t, files, "*** Begin Patch\n*** Delete File: nope\n*** End Patch\n"),
			&applypatch.FileError{Reason: applypatch.FileMissing}, nil},
		{"file exists", applyErr(t, files, "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n"),
			&applypatch.FileError{Reason: applypatch.FileExists}, nil},
		{"file binary", applyErr(t, files, "*** Begin Patch\n*** Update File: bin\n@@\n+x\n*** End Patch\n"),
			&applypatch.FileError{Reason: applypatch.FileBinary}, nil},
		{"file any reason", applyErr(t, files, "*** Begin Patch\n*** Update File: bin\n@@\n+x\n*** End Patch\n"),
			&applypatch.FileError{}, nil},
		{"limit", limitErr(t), &applypatch.FileError{Reason: applypatch.FileTooLarge}, nil},
		{"conflict", &applypatch.ConflictError{Reason: applypatch.ConflictChanged, Paths: []string{"a.txt"}}, &applypatch.ConflictError{}, nil},
		{"conflict reason", &applypatch.ConflictError{Reason: applypatch.ConflictUnsaved, Paths: []string{"a.txt"}},
			&applypatch.ConflictError{Reason: applypatch.ConflictUnsaved}, nil},
		{"incomplete rollback", &applypatch.IncompleteRollbackError{Cause: errors.New("disk full"), Paths: []string{"a.txt"}},
			&applypatch.IncompleteRollbackError{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, err := range []error{tc.err, fmt.Errorf("call: %w", tc.err)} {
				if !matches(err, tc.target) {
					t.Errorf("errors.Is(%v, %T) = false", err, tc.target)
				}
				for _, other := range allErrorTypes {
					if fmt.Sprintf("%T", other) != fmt.Sprintf("%T", tc.target) && matches(err, other) {
						t.Errorf("errors.Is(%v, %T) = true", err, other)
					}
				}
				if tc.check != nil {
					tc.check(t, err)
				}
			}
		})
	}
}

// allErrorTypes are zero values of the error types.
var allErrorTypes = []error{
	&applypatch.ParseError{}, &applypatch.MatchError{}, &applypatch.FileError{},
	&applypatch.ConflictError{}, &applypatch.IncompleteRollbackError{},
}

func limitErr(t *testing.T) error {
	fsys := memFS(t, nil)
	opts := &applypatch.Options{Limits: applypatch.Limits{AddBytes: 1}}
	_, err := applypatch.Apply(context.Background(), fsys, "*** Begin Patch\n*** Add File: a\n+xy\n*** End Patch\n", opts)
	return err
}

// TestFileErrorReason checks that a FileError matches a target with its own reason or
// none, and not another reason.
func TestFileErrorReason(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &applypatch.FileError{Path: "a", Reason: applypatch.FileMissing})
	if !errors.Is(err, &applypatch.FileError{Reason: applypatch.FileMissing}) || !errors.Is(err, &applypatch.FileError{}) {
		t.Error("a FileMissing FileError does not match FileMissing or any reason")
	}
	if errors.Is(err, &applypatch.FileError{Reason: applypatch.FileExists}) {
		t.Error("a FileMissing FileError matches Exists")
	}
	cause := errors.New("permission denied")
	if !errors.Is(&applypatch.FileError{Reason: applypatch.FileUnreadable, Err: cause}, cause) {
		t.Error("FileError does not unwrap to its cause")
	}
}

// TestPatchErrorUnwrap checks that the error of a payload with several failing
// operations joins them: each is findable with errors.As, Unwrap() []error lists them,
// and the message lists them all and says nothing was applied.
func TestPatchErrorUnwrap(t *testing.T) {
	err := applyErr(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
		"*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Delete File: c.txt\n*** End Patch\n")
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 2 {
		t.Fatalf("err = %v; want an error joining 2 errors", err)
	}
	if !errors.Is(err, &applypatch.MatchError{}) || !errors.Is(err, &applypatch.FileError{Reason: applypatch.FileMissing}) {
		t.Errorf("the error does not unwrap to both errors: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"2 problems; nothing was applied:", "- a.txt: hunk 1", "- c.txt: the file does not exist"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	one := applyErr(t, map[string]string{"a.txt": "a\n"},
		"*** Begin Patch\n*** Delete File: c.txt\n*** End Patch\n")
	if !strings.HasSuffix(one.Error(), "\nNothing was applied.") {
		t.Errorf("single-error message = %q", one.Error())
	}
}

// TestErrRejected checks that a review that selected nothing is ErrRejected.
func TestErrRejected(t *testing.T) {
	fsys := memFS(t, map[string]string{"a.txt": "a\n"})
	pr, err := applypatch.Resolve(context.Background(), fsys, mustParse(t, "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := applypatch.NewSession(pr).Select(applypatch.Target{File: 1}, false, nil); err != nil {
		t.Fatal(err)
	}
	res, err := applypatch.Commit(context.Background(), pr)
	if !errors.Is(err, applypatch.ErrRejected) || res.Text() != "Error: Patch rejected" {
		t.Errorf("Commit = %q, %v; want ErrRejected", res.Text(), err)
	}
	if readFile(t, fsys, "a.txt") != "a\n" {
		t.Error("a rejected patch deleted the file")
	}
}

func mustParse(t testing.TB, payload string) *applypatch.Patch {
	t.Helper()
	p, err := applypatch.Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOwnerConflictGroupsByReason: X5, PERF4. An owner refusal of thousands of files for
// one reason names the reason once, with the first few files and how many more: a line,
// not a list of every file (2,000 files once gave 49 KB of text).
func TestOwnerConflictGroupsByReason(t *testing.T) {
	e := &applypatch.ConflictError{Reason: applypatch.ConflictOwner, Reasons: map[string]string{}}
	for i := range 2000 {
		p := fmt.Sprintf("f%d.txt", i)
		e.Paths = append(e.Paths, p)
		e.Reasons[p] = "its group is gid 0"
	}
	e.Paths = append(e.Paths, "other.txt")
	e.Reasons["other.txt"] = "it belongs to uid 7"
	msg := e.Error()
	for _, want := range []string{"f0.txt, f1.txt, f2.txt, f3.txt, f4.txt and 1,995 more: its group is gid 0; ", "other.txt: it belongs to uid 7; "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, msg)
		}
	}
	if len(msg) > 1000 {
		t.Errorf("the refusal of 2,001 files takes %d bytes", len(msg))
	}
}
