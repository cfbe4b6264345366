package applypatch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestCommitSeesEditKeepingSizeAndTime: the check just before each write looks at a
// file's metadata instead of reading it again, so an edit that keeps the file's size
// and puts its old modification time back must still be seen, by its change time,
// whether the file was last changed long before the commit read it or just before
// (X2). Apply reads the baselines under its lock; Commit reads them again for the batch.
func TestCommitSeesEditKeepingSizeAndTime(t *testing.T) {
	for _, settled := range []bool{true, false} {
		for _, apply := range []bool{true, false} {
			name := map[bool]string{true: "settled", false: "fresh"}[settled] + "/" + map[bool]string{true: "Apply", false: "Commit"}[apply]
			t.Run(name, func(t *testing.T) {
				root := t.TempDir()
				a, c := filepath.Join(root, "a.txt"), filepath.Join(root, "c.txt")
				old := time.Now().Add(-time.Hour)
				for _, n := range []string{a, c} {
					if err := os.WriteFile(n, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.Chtimes(n, old, old); err != nil {
						t.Fatal(err)
					}
				}
				if settled {
					time.Sleep(200 * time.Millisecond) // older than any clock tick at the read
				}
				edit := func() {
					if err := os.WriteFile(c, []byte("one\nTWO\nthree\n"), 0o644); err != nil {
						t.Error(err)
					}
					if err := os.Chtimes(c, old, old); err != nil {
						t.Error(err)
					}
				}
				fsys := hookFs{afero.NewOsFs(), afterWriteOf("a.txt", edit)}
				opts := &applypatch.Options{Workspace: root}
				payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Update File: c.txt\n@@\n one\n-two\n+2\n*** End Patch\n"
				var err error
				if apply {
					_, err = applypatch.Apply(context.Background(), fsys, payload, opts)
				} else {
					_, err = applypatch.Commit(context.Background(), mustResolve(t, fsys, payload, opts))
				}
				var ce *applypatch.ConflictError
				if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"c.txt"}) {
					t.Fatalf("err = %v, want a conflict naming c.txt", err)
				}
				for n, want := range map[string]string{a: "one\ntwo\nthree\n", c: "one\nTWO\nthree\n"} {
					if got, _ := os.ReadFile(n); string(got) != want {
						t.Errorf("%s = %q, want %q", filepath.Base(n), got, want)
					}
				}
			})
		}
	}
}

// TestCommitBatchCheckSeesEditKeepingSizeAndTime: the check of the whole batch before the
// first write proves an unchanged file by one look at its metadata, as the check just
// before each write does, so an edit between Resolve and Commit that keeps the size and
// puts the old modification time back must be seen by its change time, and nothing is
// written (X2).
func TestCommitBatchCheckSeesEditKeepingSizeAndTime(t *testing.T) {
	for _, settled := range []bool{true, false} {
		t.Run(map[bool]string{true: "settled", false: "fresh"}[settled], func(t *testing.T) {
			root := t.TempDir()
			a, c := filepath.Join(root, "a.txt"), filepath.Join(root, "c.txt")
			old := time.Now().Add(-time.Hour)
			for _, n := range []string{a, c} {
				if err := os.WriteFile(n, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(n, old, old); err != nil {
					t.Fatal(err)
				}
			}
			if settled {
				time.Sleep(200 * time.Millisecond)
			}
			payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Update File: c.txt\n@@\n one\n-two\n+2\n*** End Patch\n"
			pr := mustResolve(t, afero.NewOsFs(), payload, &applypatch.Options{Workspace: root})
			if err := os.WriteFile(c, []byte("one\nTWO\nthree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(c, old, old); err != nil {
				t.Fatal(err)
			}
			_, err := applypatch.Commit(context.Background(), pr)
			var ce *applypatch.ConflictError
			if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"c.txt"}) {
				t.Fatalf("err = %v, want a conflict naming c.txt", err)
			}
			for n, want := range map[string]string{a: "one\ntwo\nthree\n", c: "one\nTWO\nthree\n"} {
				if got, _ := os.ReadFile(n); string(got) != want {
					t.Errorf("%s = %q, want %q", filepath.Base(n), got, want)
				}
			}
		})
	}
}
