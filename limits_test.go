package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestLimits checks each T5 cap with a small host limit: the payload is refused with a
// ParseError (a payload-wide limit) or a FileError of reason FileTooLarge (a per-file one)
// whose text names what was over, by how much, and what to do, before anything is written.
func TestLimits(t *testing.T) {
	files := map[string]string{"a.txt": "one\ntwo\n", "big.txt": strings.Repeat("x\n", 50)}
	for _, tc := range []struct {
		name    string
		limits  applypatch.Limits
		payload string
		target  error
		want    string
	}{
		{"payload bytes", applypatch.Limits{Payload: 40},
			"*** Begin Patch\n*** Add File: b.txt\n+hello\n*** End Patch\n", &applypatch.ParseError{},
			"invalid patch: the patch has 57 bytes, over the limit of 40; split the change into smaller patches"},
		{"operations", applypatch.Limits{Operations: 2},
			"*** Begin Patch\n*** Add File: b\n*** Add File: c\n*** Add File: d\n*** End Patch\n", &applypatch.ParseError{},
			"invalid patch: the patch has 3 operations, over the limit of 2; split the change into smaller patches"},
		{"bytes of one Add", applypatch.Limits{AddBytes: 5},
			"*** Begin Patch\n*** Add File: b.txt\n+abc\n+de\n*** End Patch\n", &applypatch.FileError{Reason: applypatch.FileTooLarge},
			"b.txt: the added file has 7 bytes, over the limit of 5 for one Add; split the change into smaller patches"},
		{"bytes of a file read", applypatch.Limits{FileBytes: 99},
			"*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: big.txt\n@@\n+y\n*** End Patch\n",
			&applypatch.FileError{Reason: applypatch.FileTooLarge},
			"big.txt: the file has 100 bytes, over the limit of 99 this host reads; it cannot be patched here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := memFS(t, files)
			opts := &applypatch.Options{Limits: tc.limits}
			res, err := applypatch.Apply(context.Background(), fsys, tc.payload, opts)
			if !matches(err, tc.target) {
				t.Fatalf("Apply = %v; want a %T", err, tc.target)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(res.Text(), tc.want) {
				t.Errorf("error %q, result %q; want them to say %q", err, res.Text(), tc.want)
			}
			for name, content := range files {
				if got := readFile(t, fsys, name); got != content {
					t.Errorf("%s changed to %q", name, got)
				}
			}
			for _, name := range []string{"b.txt", "b", "c", "d"} {
				if got := readFile(t, fsys, name); got != "<absent>" {
					t.Errorf("%s was created", name)
				}
			}
		})
	}
}

// TestLimitsAtTheCap checks that each cap is inclusive: a payload exactly at it applies.
func TestLimitsAtTheCap(t *testing.T) {
	payload := "*** Begin Patch\n*** Add File: b.txt\n+abc\n+d\n*** End Patch\n"
	limits := applypatch.Limits{Payload: len(payload), Operations: 1, AddBytes: 6}
	fsys := memFS(t, nil)
	if _, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Limits: limits}); err != nil {
		t.Fatalf("Apply at the caps: %v", err)
	}
	if got := readFile(t, fsys, "b.txt"); got != "abc\nd\n" {
		t.Errorf("b.txt = %q", got)
	}
}

// TestDefaultLimits checks that the default Add cap is the documented 2 MiB (T5).
func TestDefaultLimits(t *testing.T) {
	big := "*** Begin Patch\n*** Add File: big.txt\n+" + strings.Repeat("x", 2<<20) + "\n*** End Patch\n"
	_, err := applypatch.Apply(context.Background(), memFS(t, nil), big, nil)
	if !errors.Is(err, &applypatch.FileError{Reason: applypatch.FileTooLarge}) {
		t.Errorf("an Add of 2 MiB + 1 byte: %v; want a FileTooLarge", err)
	}
}

// TestPayloadLimitOnEveryEntry: every call that takes a payload text checks its size
// before parsing it, ResolvePayload (the entry for a host that reviews) as much as Apply
// and Check (T5).
func TestPayloadLimitOnEveryEntry(t *testing.T) {
	payload := "*** Begin Patch\n*** Add File: b.txt\n+hello\n*** End Patch\n"
	opts := &applypatch.Options{Limits: applypatch.Limits{Payload: len(payload) - 1}}
	entries := map[string]func(afero.Fs) error{
		"Apply": func(fsys afero.Fs) error {
			_, err := applypatch.Apply(context.Background(), fsys, payload, opts)
			return err
		},
		"Check": func(fsys afero.Fs) error {
			_, err := applypatch.Check(context.Background(), fsys, payload, opts)
			return err
		},
		"ResolvePayload": func(fsys afero.Fs) error {
			_, err := applypatch.ResolvePayload(context.Background(), fsys, payload, opts)
			return err
		},
	}
	for name, call := range entries {
		fsys := memFS(t, nil)
		want := fmt.Sprintf("invalid patch: the patch has %d bytes, over the limit of %d;", len(payload), len(payload)-1)
		err := call(fsys)
		if !errors.As(err, new(*applypatch.ParseError)) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want a ParseError %q", name, err, want)
		}
		if got := readFile(t, fsys, "b.txt"); got != "<absent>" {
			t.Errorf("%s created b.txt", name)
		}
	}
	fsys := memFS(t, nil)
	pr, err := applypatch.ResolvePayload(context.Background(), fsys, payload, nil)
	if err != nil || len(pr.Changes()) != 1 || pr.Changes()[0].Op.Path != "b.txt" {
		t.Fatalf("ResolvePayload under the default limit = %v, %v", pr, err)
	}
}
