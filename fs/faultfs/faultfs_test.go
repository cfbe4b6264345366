package faultfs_test

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/afero"
	"github.com/spf13/afero/mem"

	"github.com/applypatch/applypatch/fs/faultfs"
)

// backend is a base filesystem with a writable root directory.
type backend struct {
	name string
	new  func(t *testing.T) (afero.Fs, string)
}

var backends = []backend{
	{"MemMapFs", func(t *testing.T) (afero.Fs, string) {
		base := afero.NewMemMapFs()
		if err := base.MkdirAll("/root", 0o755); err != nil {
			t.Fatal(err)
		}
		return base, "/root"
	}},
	{"OsFs", func(t *testing.T) (afero.Fs, string) {
		return afero.NewOsFs(), t.TempDir()
	}},
}

// onBackends runs fn as a subtest on every backend.
func onBackends(t *testing.T, fn func(t *testing.T, base afero.Fs, dir string)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			base, dir := b.new(t)
			fn(t, base, dir)
		})
	}
}

func opIs(want faultfs.Op) func(faultfs.Op, string) bool {
	return func(op faultfs.Op, _ string) bool { return op == want }
}

func writeBase(t *testing.T, base afero.Fs, name, content string) {
	t.Helper()
	if err := afero.WriteFile(base, name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readBase(t *testing.T, base afero.Fs, name string) string {
	t.Helper()
	data, err := afero.ReadFile(base, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func assertAbsent(t *testing.T, base afero.Fs, name string) {
	t.Helper()
	if _, err := base.Stat(name); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("Stat(%s) on base: err = %v, want not exist", name, err)
	}
}

// errSkipped marks a script step that could not run because an earlier
// step failed to open its file; it makes no filesystem call.
var errSkipped = errors.New("skipped")

// scriptState carries open files between script steps.
type scriptState struct {
	fsys  afero.Fs
	dir   string
	files map[string]afero.File
}

func (s *scriptState) path(name string) string { return filepath.Join(s.dir, name) }

func (s *scriptState) withFile(key string, fn func(afero.File) error) error {
	f, ok := s.files[key]
	if !ok {
		return errSkipped
	}
	return fn(f)
}

func (s *scriptState) open(key string, f afero.File, err error) error {
	if err == nil {
		s.files[key] = f
	}
	return err
}

type step struct {
	desc string
	run  func(s *scriptState) error
}

// script exercises every mutating operation with reads interleaved.
var script = []step{
	{"Mkdir sub", func(s *scriptState) error { return s.fsys.Mkdir(s.path("sub"), 0o755) }},
	{"Create a", func(s *scriptState) error { f, err := s.fsys.Create(s.path("a")); return s.open("w", f, err) }},
	{"Write", func(s *scriptState) error {
		return s.withFile("w", func(f afero.File) error { _, err := f.Write([]byte("hello ")); return err })
	}},
	{"WriteString", func(s *scriptState) error {
		return s.withFile("w", func(f afero.File) error { _, err := f.WriteString("world\n"); return err })
	}},
	{"Sync", func(s *scriptState) error { return s.withFile("w", afero.File.Sync) }},
	{"Close", func(s *scriptState) error { return s.withFile("w", afero.File.Close) }},
	{"Stat a (read)", func(s *scriptState) error { _, err := s.fsys.Stat(s.path("a")); return err }},
	{"Open a (read)", func(s *scriptState) error { f, err := s.fsys.Open(s.path("a")); return s.open("r", f, err) }},
	{"Read (read)", func(s *scriptState) error {
		return s.withFile("r", func(f afero.File) error { _, err := io.ReadAll(f); return err })
	}},
	{"Close read-only (read)", func(s *scriptState) error { return s.withFile("r", afero.File.Close) }},
	{"OpenFile a O_RDWR", func(s *scriptState) error {
		f, err := s.fsys.OpenFile(s.path("a"), os.O_RDWR, 0)
		return s.open("rw", f, err)
	}},
	{"WriteAt", func(s *scriptState) error {
		return s.withFile("rw", func(f afero.File) error { _, err := f.WriteAt([]byte("J"), 6); return err })
	}},
	{"Truncate", func(s *scriptState) error {
		return s.withFile("rw", func(f afero.File) error { return f.Truncate(5) })
	}},
	{"Close rw", func(s *scriptState) error { return s.withFile("rw", afero.File.Close) }},
	{"Rename a sub/b", func(s *scriptState) error { return s.fsys.Rename(s.path("a"), s.path("sub/b")) }},
	{"Chmod", func(s *scriptState) error { return s.fsys.Chmod(s.path("sub/b"), 0o600) }},
	{"Chtimes", func(s *scriptState) error {
		mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		return s.fsys.Chtimes(s.path("sub/b"), mtime, mtime)
	}},
	{"Chown", func(s *scriptState) error { return s.fsys.Chown(s.path("sub/b"), os.Getuid(), os.Getgid()) }},
	{"MkdirAll", func(s *scriptState) error { return s.fsys.MkdirAll(s.path("x/y/z"), 0o755) }},
	{"Remove", func(s *scriptState) error { return s.fsys.Remove(s.path("sub/b")) }},
	{"RemoveAll", func(s *scriptState) error { return s.fsys.RemoveAll(s.path("x")) }},
}

// runScript runs every step and returns each step's error.
func runScript(fsys afero.Fs, dir string) []error {
	s := &scriptState{fsys: fsys, dir: dir, files: map[string]afero.File{}}
	errs := make([]error, len(script))
	for i, st := range script {
		errs[i] = st.run(s)
	}
	return errs
}

type opName struct {
	Op   faultfs.Op
	Name string
}

func opNames(evs []faultfs.Event) []opName {
	out := make([]opName, len(evs))
	for i, ev := range evs {
		out[i] = opName{ev.Op, ev.Name}
	}
	return out
}

func TestCountsMutatingOpsOnly(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		fsys := faultfs.New(base)
		for i, err := range runScript(fsys, dir) {
			if err != nil {
				t.Fatalf("step %q: %v", script[i].desc, err)
			}
		}
		p := func(name string) string { return filepath.Join(dir, name) }
		want := []opName{
			{faultfs.OpMkdir, p("sub")},
			{faultfs.OpCreate, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpSync, p("a")},
			{faultfs.OpClose, p("a")},
			{faultfs.OpOpen, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpClose, p("a")},
			{faultfs.OpRename, p("a")},
			{faultfs.OpChmod, p("sub/b")},
			{faultfs.OpChtimes, p("sub/b")},
			{faultfs.OpChown, p("sub/b")},
			{faultfs.OpMkdir, p("x/y/z")},
			{faultfs.OpRemove, p("sub/b")},
			{faultfs.OpRemove, p("x")},
		}
		evs := fsys.Events()
		if diff := cmp.Diff(want, opNames(evs)); diff != "" {
			t.Errorf("counted ops (-want +got):\n%s", diff)
		}
		if got := fsys.Count(); got != len(want) {
			t.Errorf("Count() = %d, want %d", got, len(want))
		}
		for i, ev := range evs {
			if ev.N != i+1 || ev.Err != nil {
				t.Errorf("event %d = %+v, want N=%d and no error", i, ev, i+1)
			}
		}
	})
}

// TestFailAtFailsExactlyTheKthMutatingOp runs the script once per k, each
// time in a fresh directory, and checks that the k-th counted operation (the
// same one the reference run made k-th) is the only one that fails.
func TestFailAtFailsExactlyTheKthMutatingOp(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		// Each run sees its directory as "/", so event names are comparable.
		runIn := func(sub string, opts ...faultfs.Option) (*faultfs.Fs, []error) {
			if err := base.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
			fsys := faultfs.New(afero.NewBasePathFs(base, filepath.Join(dir, sub)), opts...)
			return fsys, runScript(fsys, "/")
		}
		ref, _ := runIn("ref")
		want := opNames(ref.Events())
		total := len(want)
		if total < 17 {
			t.Fatalf("reference run counted only %d ops", total)
		}
		for k := 1; k <= total+1; k++ {
			fsys, errs := runIn(fmt.Sprint("k", k), faultfs.FailAt(k))
			evs := fsys.Events()
			checkOnlyKthFailed(t, k, total, errs, evs)
			upTo := min(k, total)
			if len(evs) < upTo {
				t.Fatalf("k=%d: only %d ops counted", k, len(evs))
			}
			if diff := cmp.Diff(want[:upTo], opNames(evs[:upTo])); diff != "" {
				t.Errorf("k=%d: ops up to the failure differ from the reference run (-want +got):\n%s", k, diff)
			}
		}
	})
}

// checkOnlyKthFailed checks that the k-th event, and only it, was injected,
// and that exactly one script step reported that same error.
func checkOnlyKthFailed(t *testing.T, k, total int, errs []error, evs []faultfs.Event) {
	t.Helper()
	for i, ev := range evs {
		if injected := errors.Is(ev.Err, faultfs.ErrInjected); injected != (i == k-1) {
			t.Errorf("k=%d: event %+v injected=%t", k, ev, injected)
		}
	}
	var failed []string
	for i, err := range errs {
		if errors.Is(err, faultfs.ErrInjected) {
			failed = append(failed, script[i].desc)
			if k > len(evs) || err != evs[k-1].Err {
				t.Errorf("k=%d: step %q returned %v, not the logged error of event %d", k, script[i].desc, err, k)
			}
		}
	}
	wantFailed := 1
	if k > total {
		wantFailed = 0
	}
	if len(failed) != wantFailed {
		t.Errorf("k=%d: steps failed by injection: %q, want %d", k, failed, wantFailed)
	}
}

func TestFailedOpLeavesBaseUntouched(t *testing.T) {
	type tc struct {
		name   string
		target faultfs.Op
		act    func(fsys afero.Fs, p func(string) string) error
		check  func(t *testing.T, base afero.Fs, p func(string) string)
	}
	unchanged := func(t *testing.T, base afero.Fs, p func(string) string) {
		if got := readBase(t, base, p("f")); got != "original" {
			t.Errorf("f = %q, want %q", got, "original")
		}
	}
	writeVia := func(fn func(afero.File) error) func(afero.Fs, func(string) string) error {
		return func(fsys afero.Fs, p func(string) string) error {
			f, err := fsys.OpenFile(p("f"), os.O_RDWR, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			return fn(f)
		}
	}
	cases := []tc{
		{"Create", faultfs.OpCreate,
			func(fsys afero.Fs, p func(string) string) error { _, err := fsys.Create(p("new")); return err },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("new")) }},
		{"CreateOverExisting", faultfs.OpCreate,
			func(fsys afero.Fs, p func(string) string) error { _, err := fsys.Create(p("f")); return err },
			unchanged},
		{"OpenFileTrunc", faultfs.OpOpen,
			func(fsys afero.Fs, p func(string) string) error {
				_, err := fsys.OpenFile(p("f"), os.O_WRONLY|os.O_TRUNC, 0)
				return err
			},
			unchanged},
		{"Write", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.Write([]byte("XX")); return err }), unchanged},
		{"WriteAt", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.WriteAt([]byte("XX"), 3); return err }), unchanged},
		{"WriteString", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.WriteString("XX"); return err }), unchanged},
		{"Truncate", faultfs.OpWrite, writeVia(func(f afero.File) error { return f.Truncate(0) }), unchanged},
		{"Rename", faultfs.OpRename,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Rename(p("f"), p("g")) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				unchanged(t, base, p)
				assertAbsent(t, base, p("g"))
			}},
		{"Remove", faultfs.OpRemove,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Remove(p("f")) },
			unchanged},
		{"RemoveAll", faultfs.OpRemove,
			func(fsys afero.Fs, p func(string) string) error { return fsys.RemoveAll(p("d")) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				if got := readBase(t, base, p("d/child")); got != "child" {
					t.Errorf("d/child = %q, want %q", got, "child")
				}
			}},
		{"Mkdir", faultfs.OpMkdir,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Mkdir(p("m"), 0o755) },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("m")) }},
		{"MkdirAll", faultfs.OpMkdir,
			func(fsys afero.Fs, p func(string) string) error { return fsys.MkdirAll(p("m/n"), 0o755) },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("m")) }},
		{"Chmod", faultfs.OpChmod,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Chmod(p("f"), 0o600) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				fi, err := base.Stat(p("f"))
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != 0o644 {
					t.Errorf("mode = %v, want 0644", got)
				}
			}},
		{"Chtimes", faultfs.OpChtimes,
			func(fsys afero.Fs, p func(string) string) error {
				old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
				return fsys.Chtimes(p("f"), old, old)
			},
			func(t *testing.T, base afero.Fs, p func(string) string) {
				fi, err := base.Stat(p("f"))
				if err != nil {
					t.Fatal(err)
				}
				if fi.ModTime().Year() == 2001 {
					t.Errorf("mtime changed to %v", fi.ModTime())
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
				p := func(name string) string { return filepath.Join(dir, name) }
				writeBase(t, base, p("f"), "original")
				if err := base.Chmod(p("f"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := base.Mkdir(p("d"), 0o755); err != nil {
					t.Fatal(err)
				}
				writeBase(t, base, p("d/child"), "child")

				fsys := faultfs.New(base, faultfs.FailEvery(opIs(c.target)))
				if err := c.act(fsys, p); !errors.Is(err, faultfs.ErrInjected) {
					t.Fatalf("err = %v, want injected", err)
				}
				c.check(t, base, p)
			})
		})
	}
}

func TestFailedCloseStillClosesBaseFile(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		name := filepath.Join(dir, "f")
		fsys := faultfs.New(base, faultfs.FailEvery(opIs(faultfs.OpClose)))
		f, err := fsys.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("data"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("Close() = %v, want injected", err)
		}
		_, err = f.WriteString("more")
		if !errors.Is(err, os.ErrClosed) && !errors.Is(err, mem.ErrFileClosed) {
			t.Errorf("Write after failed Close = %v, want the base's closed-file error", err)
		}
		if got := readBase(t, base, name); got != "data" {
			t.Errorf("content = %q, want %q", got, "data")
		}
	})
}

func TestEventsLog(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		p := func(name string) string { return filepath.Join(dir, name) }
		fsys := faultfs.New(base, faultfs.FailAt(5))
		if err := fsys.Mkdir(p("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, p("x/a"), []byte("A"), 0o644); err != nil {
			t.Fatal(err)
		}
		renameErr := fsys.Rename(p("x/a"), p("x/b"))
		if _, err := fsys.Stat(p("x/a")); err != nil { // a read: not logged
			t.Fatal(err)
		}

		injected := &os.LinkError{Op: "rename", Old: p("x/a"), New: p("x/b"), Err: &faultfs.Error{
			Event: faultfs.Event{N: 5, Op: faultfs.OpRename, Name: p("x/a")},
		}}
		want := []faultfs.Event{
			{N: 1, Op: faultfs.OpMkdir, Name: p("x")},
			{N: 2, Op: faultfs.OpCreate, Name: p("x/a")},
			{N: 3, Op: faultfs.OpWrite, Name: p("x/a")},
			{N: 4, Op: faultfs.OpClose, Name: p("x/a")},
			{N: 5, Op: faultfs.OpRename, Name: p("x/a"), Err: injected},
		}
		got := fsys.Events()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Events() (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(injected, renameErr); diff != "" {
			t.Errorf("Rename error (-want +got):\n%s", diff)
		}

		got[0].Name = "mutated"
		if fsys.Events()[0].Name != p("x") {
			t.Error("Events() returned the internal log, not a copy")
		}
	})
}

func TestEventsRecordBaseErrors(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		fsys := faultfs.New(base)
		err := fsys.Remove(filepath.Join(dir, "missing"))
		if !errors.Is(err, iofs.ErrNotExist) {
			t.Fatalf("Remove(missing) = %v, want not exist", err)
		}
		evs := fsys.Events()
		if len(evs) != 1 || evs[0].Err != err {
			t.Fatalf("Events() = %+v, want one event carrying %v", evs, err)
		}
		if errors.Is(evs[0].Err, faultfs.ErrInjected) {
			t.Error("a base error is reported as injected")
		}
	})
}

func TestInjectedErrorShape(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		name := filepath.Join(dir, "f")
		fsys := faultfs.New(base, faultfs.FailAt(1))
		f, err := fsys.Create(name)
		if f != nil {
			t.Errorf("Create returned a file %v alongside the injected error", f)
		}
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Errorf("errors.Is(%v, ErrInjected) = false", err)
		}
		if !errors.Is(err, &faultfs.Error{}) {
			t.Errorf("errors.Is(%v, &Error{}) = false", err)
		}
		if errors.Is(err, iofs.ErrPermission) || errors.Is(err, iofs.ErrNotExist) {
			t.Errorf("injected error %v matches an OS sentinel", err)
		}
		var pe *os.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("errors.As(%v, *os.PathError) = false", err)
		}
		if pe.Op != "open" || pe.Path != name {
			t.Errorf("PathError{Op: %q, Path: %q}, want {open, %q}", pe.Op, pe.Path, name)
		}
		var fe *faultfs.Error
		if !errors.As(err, &fe) {
			t.Fatalf("errors.As(%v, *faultfs.Error) = false", err)
		}
		if diff := cmp.Diff(faultfs.Event{N: 1, Op: faultfs.OpCreate, Name: name}, fe.Event); diff != "" {
			t.Errorf("Error.Event (-want +got):\n%s", diff)
		}
		wantMsg := "open " + name + ": faultfs: injected fault at operation 1 (create)"
		if err.Error() != wantMsg {
			t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
		}
	})
}

func TestBaseErrorIsNotInjected(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", iofs.ErrNotExist)
	if errors.Is(err, faultfs.ErrInjected) || errors.Is(err, &faultfs.Error{}) {
		t.Errorf("%v matches the injected-fault sentinels", err)
	}
}

func TestFailEveryRename(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		p := func(name string) string { return filepath.Join(dir, name) }
		fsys := faultfs.New(base, faultfs.FailEvery(opIs(faultfs.OpRename)))
		for _, name := range []string{"a", "b"} {
			if err := afero.WriteFile(fsys, p(name), []byte(name), 0o644); err != nil {
				t.Fatalf("WriteFile(%s): %v", name, err)
			}
		}
		for _, name := range []string{"a", "b"} {
			err := fsys.Rename(p(name), p(name+".new"))
			var le *os.LinkError
			if !errors.As(err, &le) || !errors.Is(err, faultfs.ErrInjected) {
				t.Fatalf("Rename(%s) = %v, want an injected *os.LinkError", name, err)
			}
			if le.Op != "rename" || le.Old != p(name) || le.New != p(name+".new") {
				t.Errorf("LinkError = %+v", le)
			}
			if got := readBase(t, base, p(name)); got != name {
				t.Errorf("%s = %q after failed rename, want %q", name, got, name)
			}
			assertAbsent(t, base, p(name+".new"))
		}
		if err := fsys.Remove(p("a")); err != nil {
			t.Errorf("Remove(a) = %v, want success: only renames fail", err)
		}
	})
}

func TestFailNthCountsOnlyMatchingOps(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailNth(2, func(op faultfs.Op, name string) bool {
		return op == faultfs.OpWrite && name == "b"
	}))
	var errs []error
	for _, name := range []string{"a", "b", "a", "b", "b"} {
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("x")
		errs = append(errs, err)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for i, err := range errs {
		if injected := errors.Is(err, faultfs.ErrInjected); injected != (i == 3) {
			t.Errorf("write %d: err = %v, injected=%t, want injected only for the 2nd write to b", i, err, injected)
		}
	}
}

func TestRulesCombine(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailAt(1), faultfs.FailAt(3))
	var failed []int
	for i := 1; i <= 4; i++ {
		if err := fsys.Mkdir(fmt.Sprint("d", i), 0o755); errors.Is(err, faultfs.ErrInjected) {
			failed = append(failed, i)
		}
	}
	if diff := cmp.Diff([]int{1, 3}, failed); diff != "" {
		t.Errorf("failed ops (-want +got):\n%s", diff)
	}
}

func TestRulePanicsOnInvalidK(t *testing.T) {
	for name, mk := range map[string]func(){
		"FailAt(0)":   func() { faultfs.FailAt(0) },
		"FailNth(-1)": func() { faultfs.FailNth(-1, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			mk()
		})
	}
}

func TestCountReads(t *testing.T) {
	readAll := func(fsys afero.Fs) error {
		if _, err := fsys.Stat("/d/f"); err != nil {
			return err
		}
		if _, _, err := fsys.(afero.Lstater).LstatIfPossible("/d/f"); err != nil {
			return err
		}
		if _, err := afero.ReadFile(fsys, "/d/f"); err != nil {
			return err
		}
		_, err := afero.ReadDir(fsys, "/d")
		return err
	}
	base := afero.NewMemMapFs()
	writeBase(t, base, "/d/f", "content")

	plain := faultfs.New(base, faultfs.FailEvery(nil))
	if err := readAll(plain); err != nil {
		t.Fatalf("reads failed without CountReads: %v", err)
	}
	if n := plain.Count(); n != 0 {
		t.Errorf("Count() = %d without CountReads, want 0: %+v", n, plain.Events())
	}

	counting := faultfs.New(base, faultfs.CountReads())
	if err := readAll(counting); err != nil {
		t.Fatal(err)
	}
	got := map[faultfs.Op]int{}
	for _, ev := range counting.Events() {
		got[ev.Op]++
	}
	// Stat, Lstat, and ReadFile's File.Stat; two opens, two closes; reads
	// by ReadFile (data, then EOF) and ReadDir's Readdir.
	want := map[faultfs.Op]int{faultfs.OpStat: 3, faultfs.OpOpen: 2, faultfs.OpClose: 2, faultfs.OpRead: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counted reads (-want +got):\n%s", diff)
	}

	failRead := faultfs.New(base, faultfs.CountReads(), faultfs.FailNth(1, opIs(faultfs.OpRead)))
	if _, err := afero.ReadFile(failRead, "/d/f"); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("ReadFile with a failing read = %v, want injected", err)
	}
}

func TestOpenFileClassification(t *testing.T) {
	cases := []struct {
		flag int
		want []faultfs.Op // counted ops of OpenFile then Close
	}{
		{os.O_RDONLY, nil},
		{os.O_WRONLY, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_RDWR, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_WRONLY | os.O_APPEND, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_WRONLY | os.O_TRUNC, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_RDONLY | os.O_CREATE, []faultfs.Op{faultfs.OpCreate, faultfs.OpClose}},
		{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, []faultfs.Op{faultfs.OpCreate, faultfs.OpClose}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("flag=%#x", c.flag), func(t *testing.T) {
			base := afero.NewMemMapFs()
			writeBase(t, base, "f", "x")
			fsys := faultfs.New(base)
			f, err := fsys.OpenFile("f", c.flag, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var got []faultfs.Op
			for _, ev := range fsys.Events() {
				got = append(got, ev.Op)
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("counted ops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncOnReadOnlyHandleIsCounted(t *testing.T) {
	dir := t.TempDir()
	fsys := faultfs.New(afero.NewOsFs(), faultfs.FailEvery(opIs(faultfs.OpSync)))
	d, err := fsys.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("directory Sync = %v, want injected", err)
	}
}

func TestReset(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailAt(1))
	if err := fsys.Mkdir("a", 0o755); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("Mkdir(a) = %v, want injected", err)
	}
	fsys.Reset(faultfs.FailAt(2))
	if n, evs := fsys.Count(), fsys.Events(); n != 0 || len(evs) != 0 {
		t.Fatalf("after Reset: Count() = %d, Events() = %+v, want empty", n, evs)
	}
	if err := fsys.Mkdir("a", 0o755); err != nil {
		t.Errorf("Mkdir(a) after Reset = %v, want success (old rule dropped)", err)
	}
	if err := fsys.Mkdir("b", 0o755); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("Mkdir(b) after Reset = %v, want injected by the new rule", err)
	}
	if got := fsys.Events()[1].N; got != 2 {
		t.Errorf("second event N = %d, want 2", got)
	}
}

func TestName(t *testing.T) {
	if got, want := faultfs.New(afero.NewMemMapFs()).Name(), "faultfs(MemMapFS)"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
}

func TestSymlinkOnOsFs(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	base := afero.NewOsFs()
	writeBase(t, base, target, "T")

	fsys := faultfs.New(base)
	if err := fsys.SymlinkIfPossible(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	got, err := fsys.ReadlinkIfPossible(link)
	if err != nil || got != target {
		t.Errorf("ReadlinkIfPossible = %q, %v; want %q", got, err, target)
	}
	fi, lstat, err := fsys.LstatIfPossible(link)
	if err != nil || !lstat || fi.Mode()&iofs.ModeSymlink == 0 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want a symlink via lstat", fi, lstat, err)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpSymlink, link}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}

	failing := faultfs.New(base, faultfs.FailAt(1))
	link2 := filepath.Join(dir, "link2")
	err = failing.SymlinkIfPossible(target, link2)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "symlink" || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing SymlinkIfPossible = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(link2); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("failed symlink left %s behind (Lstat: %v)", link2, err)
	}
}

func TestSymlinkOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/target", "T")
	fsys := faultfs.New(base, faultfs.CountReads())

	err := fsys.SymlinkIfPossible("/target", "/link")
	var le *os.LinkError
	if !errors.Is(err, afero.ErrNoSymlink) || !errors.As(err, &le) {
		t.Errorf("SymlinkIfPossible = %v, want *os.LinkError wrapping afero.ErrNoSymlink", err)
	}
	if _, err := fsys.ReadlinkIfPossible("/target"); !errors.Is(err, afero.ErrNoReadlink) {
		t.Errorf("ReadlinkIfPossible = %v, want afero.ErrNoReadlink", err)
	}
	if n := fsys.Count(); n != 0 {
		t.Errorf("unsupported link ops were counted: %+v", fsys.Events())
	}
	fi, lstat, err := fsys.LstatIfPossible("/target")
	if err != nil || lstat || fi.Size() != 1 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want the file via Stat", fi, lstat, err)
	}
}

// statOnly hides every optional interface of the wrapped filesystem.
type statOnly struct{ afero.Fs }

func TestLinkOnOsFs(t *testing.T) {
	dir := t.TempDir()
	base := afero.NewOsFs()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	writeBase(t, base, target, "T")
	fsys := faultfs.New(base)

	if err := fsys.Link(target, link); err != nil {
		t.Fatalf("Link = %v", err)
	}
	a, _ := os.Stat(target)
	b, err := os.Stat(link)
	if err != nil || !os.SameFile(a, b) {
		t.Errorf("Link made %v (%v), want a second name of %s", b, err, target)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpLink, link}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}
	if err := fsys.Link(target, link); !errors.Is(err, iofs.ErrExist) || errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("Link onto an existing name = %v, want the base's EEXIST", err)
	}

	failing := faultfs.New(base, faultfs.FailAt(1))
	link2 := filepath.Join(dir, "link2")
	err = failing.Link(target, link2)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "link" || le.New != link2 || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing Link = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(link2); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("failed link left %s behind (Lstat: %v)", link2, err)
	}
}

// linkingFs is a base with a Link method of its own, as fs/rootfs has.
type linkingFs struct {
	afero.Fs
	links [][2]string
}

func (l *linkingFs) Link(oldname, newname string) error {
	l.links = append(l.links, [2]string{oldname, newname})
	return nil
}

func TestLinkPassesToBaseLink(t *testing.T) {
	base := &linkingFs{Fs: afero.NewMemMapFs()}
	fsys := faultfs.New(base)
	if err := fsys.Link("/a", "/b"); err != nil || len(base.links) != 1 || base.links[0] != [2]string{"/a", "/b"} {
		t.Errorf("Link = %v, base saw %v; want /a -> /b passed on", err, base.links)
	}
	if n := fsys.Count(); n != 1 {
		t.Errorf("Count = %d, want the link counted", n)
	}
}

func TestLinkOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/target", "T")
	fsys := faultfs.New(base, faultfs.CountReads())
	err := fsys.Link("/target", "/link")
	var le *os.LinkError
	if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &le) {
		t.Errorf("Link = %v, want *os.LinkError wrapping errors.ErrUnsupported", err)
	}
	if n := fsys.Count(); n != 0 {
		t.Errorf("an unsupported link was counted: %+v", fsys.Events())
	}
}

func TestLstatFallsBackToStat(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/f", "abc")
	fsys := faultfs.New(statOnly{base})
	fi, lstat, err := fsys.LstatIfPossible("/f")
	if err != nil || lstat || fi.Size() != 3 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want Stat's result", fi, lstat, err)
	}
}

func TestConcurrentUse(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		const n = 64
		name := func(i int) string {
			return filepath.Join(dir, fmt.Sprintf("f%02d-%s", i, []string{"even", "odd"}[i%2]))
		}
		fsys := faultfs.New(base, faultfs.FailEvery(func(op faultfs.Op, name string) bool {
			return op == faultfs.OpCreate && strings.HasSuffix(name, "-odd")
		}))

		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() { // observe concurrently with the writers
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_, _ = fsys.Count(), fsys.Events()
				}
			}
		}()
		errs := make([]error, n)
		var writers sync.WaitGroup
		for i := range n {
			writers.Add(1)
			go func() {
				defer writers.Done()
				errs[i] = afero.WriteFile(fsys, name(i), []byte(name(i)), 0o644)
			}()
		}
		writers.Wait()
		close(stop)
		wg.Wait()

		for i, err := range errs {
			if odd := i%2 == 1; odd != errors.Is(err, faultfs.ErrInjected) {
				t.Errorf("file %d: err = %v", i, err)
			}
			if i%2 == 1 {
				assertAbsent(t, base, name(i))
			} else if got := readBase(t, base, name(i)); got != name(i) {
				t.Errorf("file %d content = %q", i, got)
			}
		}
		evs := fsys.Events()
		if want := n/2*3 + n/2; len(evs) != want || fsys.Count() != want {
			t.Errorf("counted %d events (Count %d), want %d", len(evs), fsys.Count(), want)
		}
		for i, ev := range evs {
			if ev.N != i+1 {
				t.Errorf("event %d has N = %d", i, ev.N)
			}
		}
	})
}

// TestRenameNoReplaceOnOsFs: RenameNoReplace is counted as a rename under the old name,
// renames to a free name, fails with the base's EEXIST on a taken one, and an injected
// failure leaves both names as they were.
func TestRenameNoReplaceOnOsFs(t *testing.T) {
	dir := t.TempDir()
	base := afero.NewOsFs()
	tmp, taken, free := filepath.Join(dir, "tmp"), filepath.Join(dir, "taken"), filepath.Join(dir, "free")
	writeBase(t, base, tmp, "ours")
	writeBase(t, base, taken, "theirs")
	fsys := faultfs.New(base)
	err := fsys.RenameNoReplace(tmp, taken)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no rename that refuses a name here: %v", err)
	}
	if !errors.Is(err, iofs.ErrExist) || errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("RenameNoReplace onto a taken name = %v, want the base's EEXIST", err)
	}
	if got := readBase(t, base, taken); got != "theirs" {
		t.Errorf("the taken name holds %q, want theirs kept", got)
	}
	failing := faultfs.New(base, faultfs.FailAt(1))
	err = failing.RenameNoReplace(tmp, free)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "rename" || le.Old != tmp || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing RenameNoReplace = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(free); !errors.Is(err, iofs.ErrNotExist) || readBase(t, base, tmp) != "ours" {
		t.Errorf("a failed rename moved the file (Lstat %s: %v)", free, err)
	}
	if err := fsys.RenameNoReplace(tmp, free); err != nil || readBase(t, base, free) != "ours" {
		t.Errorf("RenameNoReplace to a free name = %v", err)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpRename, tmp}, {faultfs.OpRename, tmp}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}
}

func TestRenameNoReplaceOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/a", "A")
	fsys := faultfs.New(base, faultfs.CountReads())
	err := fsys.RenameNoReplace("/a", "/b")
	var le *os.LinkError
	if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &le) {
		t.Errorf("RenameNoReplace = %v, want *os.LinkError wrapping errors.ErrUnsupported", err)
	}
	if n := fsys.Count(); n != 0 || readBase(t, base, "/a") != "A" {
		t.Errorf("an unsupported rename was counted or made: %+v", fsys.Events())
	}
}
