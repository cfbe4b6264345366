package applypatch_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// abcFiles and abcPayload are three files and a payload updating each, in order.
var abcFiles = map[string]fixtureFile{
	"a.txt": {"a1\na2\n", 0o644},
	"b.txt": {"b1\nb2\n", 0o600},
	"c.txt": {"c1\nc2\n", 0o755},
}

const abcPayload = `*** Begin Patch
*** Update File: a.txt
@@
-a2
+A2
*** Update File: b.txt
@@
-b2
+B2
*** Update File: c.txt
@@
-c2
+C2
*** End Patch
`

// hookFs calls afterRename after each successful rename: someone else acting on the tree
// while a commit runs.
type hookFs struct {
	afero.Fs
	afterRename func(newname string)
}

func (f hookFs) Rename(oldname, newname string) error {
	err := f.Fs.Rename(oldname, newname)
	if err == nil && f.afterRename != nil {
		f.afterRename(newname)
	}
	return err
}

// afterWriteOf returns an afterRename hook that runs do once, when the commit has
// replaced the file base name.
func afterWriteOf(base string, do func()) func(string) {
	var once sync.Once
	return func(newname string) {
		if filepath.Base(newname) == base {
			once.Do(do)
		}
	}
}

func writeString(t testing.TB, fsys afero.Fs, name, data string) {
	t.Helper()
	if err := afero.WriteFile(fsys, name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRollbackLeavesSomeoneElsesEditAlone: a path someone else changed after the
// commit wrote it is not restored over their edit; it is reported, with the original
// failure, and every other path is restored (X5, X6).
func TestRollbackLeavesSomeoneElsesEditAlone(t *testing.T) {
	edits := []struct {
		name string
		edit func(t testing.TB, fsys afero.Fs, name string)
		left treeEntry // what a.txt holds after the edit
	}{
		{"bytes", func(t testing.TB, fsys afero.Fs, name string) { writeString(t, fsys, name, "someone else\n") },
			treeEntry{mode: 0o644, data: "someone else\n"}},
		{"mode", func(t testing.TB, fsys afero.Fs, name string) {
			if err := fsys.Chmod(name, 0o600); err != nil {
				t.Fatal(err)
			}
		}, treeEntry{mode: 0o600, data: "a1\nA2\n"}},
	}
	for _, e := range edits {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			t.Run(e.name, func(t *testing.T) {
				writeFixture(t, base, root, abcFiles)
				want := readTree(t, base, root)
				want["a.txt"] = e.left
				a := filepath.Join(root, "a.txt")
				meddler := hookFs{base, afterWriteOf("a.txt", func() { e.edit(t, base, a) })}
				fsys := faultfs.New(meddler, faultfs.FailNth(3, opIs(faultfs.OpRename)))
				pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})

				_, err := applypatch.Commit(context.Background(), pr)

				var ire *applypatch.IncompleteRollbackError
				if !errors.As(err, &ire) {
					t.Fatalf("err = %v, want an IncompleteRollbackError", err)
				}
				if !errors.Is(err, faultfs.ErrInjected) {
					t.Errorf("err = %v, want the original failure wrapped", err)
				}
				if diff := cmp.Diff([]string{"a.txt"}, ire.Paths); diff != "" {
					t.Errorf("Paths (-want +got):\n%s", diff)
				}
				if !strings.Contains(ire.Reasons["a.txt"], "someone else") {
					t.Errorf("Reasons[a.txt] = %q, want it to say someone else changed it", ire.Reasons["a.txt"])
				}
				if diff := cmp.Diff(want, readTree(t, base, root), cmp.AllowUnexported(treeEntry{})); diff != "" {
					t.Errorf("tree (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// TestCommitConflictWritesNothing: a file edited between Resolve and Commit is a
// conflict for the whole batch before the first write (X2, X7). The proposal stays
// usable: deselecting the stale change applies the rest, and restoring the file lets
// the whole patch apply.
func TestCommitConflictWritesNothing(t *testing.T) {
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, abcFiles)
		b := filepath.Join(root, "b.txt")
		t.Run("deselect", func(t *testing.T) {
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})
			writeString(t, fsys, b, "edited meanwhile\n")
			before := readTree(t, fsys, root)

			_, err := applypatch.Commit(context.Background(), pr)

			var ce *applypatch.ConflictError
			if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"b.txt"}) {
				t.Fatalf("err = %v, want a conflict naming b.txt", err)
			}
			if !strings.Contains(err.Error(), "Deselect the stale file") {
				t.Errorf("err = %v, want the recovery hint", err)
			}
			if diff := treeDiff(before, readTree(t, fsys, root)); len(diff) > 0 {
				t.Fatalf("a conflict wrote %v", diff)
			}
			deselectAll(changeOf(t, pr, "b.txt"))
			res, err := applypatch.Commit(context.Background(), pr)
			if err != nil {
				t.Fatalf("Commit after deselecting: %v", err)
			}
			if !strings.HasPrefix(res.Text(), "Applied patch: 2 changes") {
				t.Errorf("result:\n%s", res.Text())
			}
			after := readTree(t, fsys, root)
			if got := []string{after["a.txt"].data, after["b.txt"].data, after["c.txt"].data}; !slices.Equal(got, []string{"a1\nA2\n", "edited meanwhile\n", "c1\nC2\n"}) {
				t.Errorf("files = %q", got)
			}
		})
		writeFixture(t, fsys, root, abcFiles)
		t.Run("restore", func(t *testing.T) {
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})
			writeString(t, fsys, b, "edited meanwhile\n")
			if _, err := applypatch.Commit(context.Background(), pr); !errors.Is(err, &applypatch.ConflictError{}) {
				t.Fatalf("err = %v, want a conflict", err)
			}
			writeString(t, fsys, b, abcFiles["b.txt"].data)
			if err := fsys.Chmod(b, abcFiles["b.txt"].mode); err != nil {
				t.Fatal(err)
			}
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatalf("Commit after restoring b.txt: %v", err)
			}
			if got := readTree(t, fsys, root)["b.txt"].data; got != "b1\nB2\n" {
				t.Errorf("b.txt = %q", got)
			}
			// The committed proposal's baselines are now stale: committing it twice
			// is a conflict, not a second write.
			if _, err := applypatch.Commit(context.Background(), pr); !errors.Is(err, &applypatch.ConflictError{}) {
				t.Errorf("second Commit: err = %v, want a conflict", err)
			}
		})
	})
}

// TestCommitConflictKinds: every kind of drift from the baseline is a conflict that
// writes nothing, including a change of mode only and a path that appeared (X2, X3).
func TestCommitConflictKinds(t *testing.T) {
	const payload = `*** Begin Patch
*** Add File: new.txt
+new
*** Update File: a.txt
@@
-a2
+A2
*** Update File: b.txt
*** Move to: moved.txt
*** Delete File: c.txt
*** End Patch
`
	drifts := []struct {
		name  string
		path  string // as authored
		drift func(t testing.TB, fsys afero.Fs, name string)
	}{
		{"bytes", "a.txt", func(t testing.TB, fsys afero.Fs, name string) { writeString(t, fsys, name, "a1\nother\n") }},
		{"mode only", "a.txt", func(t testing.TB, fsys afero.Fs, name string) {
			if err := fsys.Chmod(name, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"add path appeared", "new.txt", func(t testing.TB, fsys afero.Fs, name string) { writeString(t, fsys, name, "x\n") }},
		{"move destination appeared", "moved.txt", func(t testing.TB, fsys afero.Fs, name string) { writeString(t, fsys, name, "x\n") }},
		{"deleted file gone", "c.txt", func(t testing.TB, fsys afero.Fs, name string) {
			if err := fsys.Remove(name); err != nil {
				t.Fatal(err)
			}
		}},
		{"moved source became a directory", "b.txt", func(t testing.TB, fsys afero.Fs, name string) {
			if err := fsys.Remove(name); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Mkdir(name, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, d := range drifts {
		onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
			t.Run(d.name, func(t *testing.T) {
				writeFixture(t, fsys, root, abcFiles)
				counted := faultfs.New(fsys)
				pr := mustResolve(t, counted, payload, &applypatch.Options{Workspace: root})
				d.drift(t, fsys, filepath.Join(root, d.path))
				before := readTree(t, fsys, root)

				_, err := applypatch.Commit(context.Background(), pr)
				if n := counted.Count(); n > 0 {
					t.Errorf("%d mutating operations before the conflict was found: %v", n, counted.Events())
				}

				var ce *applypatch.ConflictError
				if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{d.path}) {
					t.Fatalf("err = %v, want a conflict naming %s", err, d.path)
				}
				if len(ce.Expected) > 0 {
					t.Errorf("Expected = %v for a path that drifted from its baseline, want none", ce.Expected)
				}
				if diff := treeDiff(before, readTree(t, fsys, root)); len(diff) > 0 {
					t.Errorf("a conflict wrote %v", diff)
				}
			})
		})
	}
}

// TestCommitConflictJustBeforeWrite: a path edited after the batch check but before its
// own write is caught by the check just before the write: what was written is rolled
// back and the other's edit stays (X2, X5).
func TestCommitConflictJustBeforeWrite(t *testing.T) {
	onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
		writeFixture(t, base, root, abcFiles)
		c := filepath.Join(root, "c.txt")
		fsys := hookFs{base, afterWriteOf("a.txt", func() { writeString(t, base, c, "edited meanwhile\n") })}
		pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})
		want := readTree(t, base, root)
		want["c.txt"] = treeEntry{mode: 0o755, data: "edited meanwhile\n"}

		_, err := applypatch.Commit(context.Background(), pr)

		var ce *applypatch.ConflictError
		if !errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"c.txt"}) || errors.As(err, new(*applypatch.IncompleteRollbackError)) {
			t.Fatalf("err = %v, want a conflict naming c.txt after a complete rollback", err)
		}
		if diff := cmp.Diff(want, readTree(t, base, root), cmp.AllowUnexported(treeEntry{})); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
}
