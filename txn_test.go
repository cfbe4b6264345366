package applypatch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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

// TestCommitExpectedSnapshots: snapshots the host supplies are checked like baselines,
// keyed by any spelling of a path of the payload: the resolved name, the authored path,
// or an unclean relative or absolute one; a missing hash or mode is not checked. A
// mismatch is a conflict that says which paths failed a snapshot, and a dry run finds
// it too (X2).
func TestCommitExpectedSnapshots(t *testing.T) {
	a1 := "a1\na2\n"
	cases := []struct {
		name     string
		expected func(root string) map[string]applypatch.Snapshot
		conflict []string
	}{
		{"matching, by name", func(root string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{filepath.Join(root, "a.txt"): {Exists: true, Hash: sha(a1), Mode: 0o644}}
		}, nil},
		{"hash differs, by name", func(root string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{filepath.Join(root, "a.txt"): {Exists: true, Hash: sha("a1\n")}}
		}, []string{"a.txt"}},
		{"hash differs, by authored path", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"b.txt": {Exists: true, Hash: sha("other")}}
		}, []string{"b.txt"}},
		{"hash differs, by ./ path", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"./b.txt": {Exists: true, Hash: sha("other")}}
		}, []string{"b.txt"}},
		{"hash differs, by unclean absolute name", func(root string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{root + "/x/../c.txt": {Exists: true, Hash: sha("other")}}
		}, []string{"c.txt"}},
		{"two spellings of one path, one stale", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"a.txt": {Exists: true, Hash: sha(a1)}, "./a.txt": {Exists: true, Hash: sha("other")}}
		}, []string{"a.txt"}},
		{"mode differs", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"a.txt": {Exists: true, Hash: sha(a1), Mode: 0o600}}
		}, []string{"a.txt"}},
		{"presence only", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"a.txt": {Exists: true}, "c.txt": {Exists: true}}
		}, nil},
		{"expected absent", func(string) map[string]applypatch.Snapshot {
			return map[string]applypatch.Snapshot{"c.txt": {}}
		}, []string{"c.txt"}},
	}
	for _, c := range cases {
		onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
			t.Run(c.name, func(t *testing.T) {
				writeFixture(t, fsys, root, abcFiles)
				before := readTree(t, fsys, root)
				opts := &applypatch.Options{Workspace: root, Expected: c.expected(root)}
				_, checkErr := applypatch.Check(context.Background(), fsys, abcPayload, opts)
				var checked *applypatch.ConflictError
				if errors.As(checkErr, &checked) != (c.conflict != nil) || (checked != nil && !slices.Equal(checked.Expected, c.conflict)) {
					t.Errorf("Check: err = %v, want the conflict Commit finds (%v)", checkErr, c.conflict)
				}
				pr := mustResolve(t, fsys, abcPayload, opts)
				_, err := applypatch.Commit(context.Background(), pr)
				if c.conflict == nil {
					if err != nil {
						t.Fatalf("Commit: %v", err)
					}
					return
				}
				var ce *applypatch.ConflictError
				if !errors.As(err, &ce) || !slices.Equal(ce.Paths, c.conflict) {
					t.Fatalf("err = %v, want a conflict naming %v", err, c.conflict)
				}
				if !slices.Equal(ce.Expected, c.conflict) {
					t.Errorf("Expected = %v, want %v: those paths failed the host's snapshot", ce.Expected, c.conflict)
				}
				if diff := treeDiff(before, readTree(t, fsys, root)); len(diff) > 0 {
					t.Errorf("a conflict wrote %v", diff)
				}
			})
		})
	}
}

// TestExpectedThroughLinkedWorkspace: a snapshot keyed by an absolute name through a
// workspace that is a symbolic link names the file the commit writes (X2).
func TestExpectedThroughLinkedWorkspace(t *testing.T) {
	fsys := afero.NewOsFs()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	writeFixture(t, fsys, real, abcFiles)
	link := filepath.Join(base, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	before := readTree(t, fsys, real)
	for name, ws := range map[string]string{"workspace by its link": link, "workspace by its real name": real} {
		t.Run(name, func(t *testing.T) {
			expected := map[string]applypatch.Snapshot{filepath.Join(link, "a.txt"): {Exists: true, Hash: sha("other")}}
			_, err := applypatch.Apply(context.Background(), fsys, abcPayload, &applypatch.Options{Workspace: ws, Expected: expected})
			var ce *applypatch.ConflictError
			if !errors.As(err, &ce) || !slices.Equal(ce.Expected, []string{"a.txt"}) {
				t.Fatalf("err = %v, want a conflict on a.txt's snapshot", err)
			}
			if diff := treeDiff(before, readTree(t, fsys, real)); len(diff) > 0 {
				t.Errorf("a conflict wrote %v", diff)
			}
		})
	}
}

// TestExpectedNamesNoPath: a snapshot keyed by a path the payload does not name is a
// mistake the host must hear of, never skipped: Resolve refuses it, and so does Commit
// of a proposal whose options gained such a key (X2). A path of the payload whose change
// was deselected in review is still a path of the payload.
func TestExpectedNamesNoPath(t *testing.T) {
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, abcFiles)
		before := readTree(t, fsys, root)
		keys := []string{"elsewhere.txt", root + "/a.txt/../d.txt"}
		expected := map[string]applypatch.Snapshot{"a.txt": {Exists: true}}
		for _, k := range keys {
			expected[k] = applypatch.Snapshot{Exists: true}
		}
		p, err := applypatch.Parse(abcPayload)
		if err != nil {
			t.Fatal(err)
		}
		_, err = applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: root, Expected: expected})
		var ce *applypatch.ConflictError
		if !errors.As(err, &ce) || ce.Reason != applypatch.ConflictNotInPatch || !slices.Equal(ce.Paths, slices.Sorted(slices.Values(keys))) {
			t.Fatalf("Resolve: err = %v, want a ConflictNotInPatch naming %v", err, keys)
		}
		for _, want := range []string{"elsewhere.txt", "d.txt", "the patch was not applied"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
		if strings.Contains(err.Error(), root) {
			t.Errorf("error %q names the workspace's host path", err)
		}
		if !errors.Is(err, &applypatch.ConflictError{Reason: applypatch.ConflictNotInPatch}) {
			t.Errorf("errors.Is(%v, ConflictNotInPatch) = false", err)
		}

		pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root, Expected: map[string]applypatch.Snapshot{"b.txt": {Exists: true}}})
		if err := applypatch.NewSession(pr).Select(applypatch.Target{File: 2}, false, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := applypatch.Commit(context.Background(), pr); err != nil {
			t.Fatalf("Commit with b.txt deselected: %v", err)
		}
		if diff := treeDiff(before, readTree(t, fsys, root)); !slices.Equal(diff, []string{"a.txt", "c.txt"}) {
			t.Errorf("wrote %v, want a.txt and c.txt", diff)
		}
	})
}

// sha is the hex SHA-256 a Snapshot holds.
func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
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

// revocable is an OwnerPredicate from which a test takes paths (by base name) away.
type revocable struct {
	mu      sync.Mutex
	revoked map[string]bool
}

func (o *revocable) Owns(name string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.revoked[filepath.Base(name)]
}

func (o *revocable) revoke(base string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.revoked == nil {
		o.revoked = map[string]bool{}
	}
	o.revoked[base] = true
}

// TestCommitOwner: the OwnerPredicate is asked for the whole batch before the first
// write, again before each write and before each rollback step; a path the host no
// longer owns is never touched (X8).
func TestCommitOwner(t *testing.T) {
	t.Run("before the first write", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			before := readTree(t, base, root)
			owner := applypatch.OwnerFunc(func(name string) bool { return filepath.Base(name) != "b.txt" })
			pr := mustResolve(t, base, abcPayload, &applypatch.Options{Workspace: root, Owner: owner})
			_, err := applypatch.Commit(context.Background(), pr)
			var oe *applypatch.ConflictError
			if !errors.As(err, &oe) || oe.Reason != applypatch.ConflictNotOwned || !slices.Equal(oe.Paths, []string{"b.txt"}) {
				t.Fatalf("err = %v, want a ConflictNotOwned conflict naming b.txt", err)
			}
			if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 {
				t.Errorf("wrote %v", diff)
			}
		})
	})
	t.Run("revoked before its write", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			before := readTree(t, base, root)
			owner := &revocable{}
			fsys := hookFs{base, afterWriteOf("a.txt", func() { owner.revoke("c.txt") })}
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root, Owner: owner})
			_, err := applypatch.Commit(context.Background(), pr)
			var oe *applypatch.ConflictError
			if !errors.As(err, &oe) || oe.Reason != applypatch.ConflictNotOwned || !slices.Equal(oe.Paths, []string{"c.txt"}) || errors.As(err, new(*applypatch.IncompleteRollbackError)) {
				t.Fatalf("err = %v, want a ConflictNotOwned conflict naming c.txt after a complete rollback", err)
			}
			if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 {
				t.Errorf("not rolled back: %v", diff)
			}
		})
	})
	t.Run("revoked before rollback", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			before := readTree(t, base, root)
			owner := &revocable{}
			hooked := hookFs{base, afterWriteOf("b.txt", func() { owner.revoke("a.txt") })}
			fsys := faultfs.New(hooked, faultfs.FailNth(3, opIs(faultfs.OpRename)))
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root, Owner: owner})
			_, err := applypatch.Commit(context.Background(), pr)
			var ire *applypatch.IncompleteRollbackError
			if !errors.As(err, &ire) || !slices.Equal(ire.Paths, []string{"a.txt"}) || !errors.Is(err, faultfs.ErrInjected) {
				t.Fatalf("err = %v, want an incomplete rollback naming a.txt, wrapping the fault", err)
			}
			if !strings.Contains(ire.Reasons["a.txt"], "no longer owns") {
				t.Errorf("Reasons = %v", ire.Reasons)
			}
			if got := treeDiff(before, readTree(t, base, root)); !slices.Equal(got, []string{"a.txt"}) {
				t.Errorf("differ from baseline: %v, want only a.txt, left as written", got)
			}
		})
	})
}

// buffers is a fake editor: open buffers, which have unsaved edits, and which were
// refreshed.
type buffers struct {
	mu        sync.Mutex
	unsaved   map[string]bool
	refreshed []string
	fail      error
}

func (b *buffers) Unsaved(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.unsaved[filepath.Base(name)]
}

func (b *buffers) Refresh(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refreshed = append(b.refreshed, filepath.Base(name))
	return b.fail
}

func (b *buffers) setUnsaved(base string, v bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unsaved[base] = v
}

// TestCommitBuffers: a buffer with unsaved edits refuses the commit and nothing is
// written; after success the unmodified buffers of every written or removed path are
// refreshed; a buffer edited while the commit ran is kept and reported (X6, X8, X9).
func TestCommitBuffers(t *testing.T) {
	const payload = `*** Begin Patch
*** Update File: a.txt
@@
-a2
+A2
*** Update File: b.txt
*** Move to: moved.txt
*** Delete File: c.txt
*** End Patch
`
	t.Run("unsaved refuses", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			before := readTree(t, base, root)
			bufs := &buffers{unsaved: map[string]bool{"c.txt": true}}
			pr := mustResolve(t, base, payload, &applypatch.Options{Workspace: root, Buffers: bufs})
			_, err := applypatch.Commit(context.Background(), pr)
			var ue *applypatch.ConflictError
			if !errors.As(err, &ue) || ue.Reason != applypatch.ConflictUnsaved || !slices.Equal(ue.Paths, []string{"c.txt"}) {
				t.Fatalf("err = %v, want a ConflictUnsaved conflict naming c.txt", err)
			}
			if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 || len(bufs.refreshed) > 0 {
				t.Fatalf("wrote %v, refreshed %v", diff, bufs.refreshed)
			}
			bufs.setUnsaved("c.txt", false) // the person saved or reverted
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatalf("Commit after saving: %v", err)
			}
			if want := []string{"a.txt", "moved.txt", "b.txt", "c.txt"}; !slices.Equal(bufs.refreshed, want) {
				t.Errorf("refreshed %v, want %v", bufs.refreshed, want)
			}
		})
	})
	t.Run("unsaved before its write", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			before := readTree(t, base, root)
			bufs := &buffers{unsaved: map[string]bool{}}
			fsys := hookFs{base, afterWriteOf("a.txt", func() { bufs.setUnsaved("c.txt", true) })}
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, Buffers: bufs})
			_, err := applypatch.Commit(context.Background(), pr)
			if !errors.Is(err, &applypatch.ConflictError{Reason: applypatch.ConflictUnsaved}) || errors.As(err, new(*applypatch.IncompleteRollbackError)) {
				t.Fatalf("err = %v, want a ConflictUnsaved conflict after a complete rollback", err)
			}
			if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 || len(bufs.refreshed) > 0 {
				t.Fatalf("left %v, refreshed %v", diff, bufs.refreshed)
			}
		})
	})
	t.Run("edited in a buffer before rollback", func(t *testing.T) {
		// X6: a.txt is written, then its buffer gains unsaved edits, then a later step
		// fails. Restoring a.txt under the edited buffer would lose one version or the
		// other, so it is left as written and reported as not restored.
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			bufs := &buffers{unsaved: map[string]bool{}}
			fsys := hookFs{base, afterWriteOf("a.txt", func() {
				bufs.setUnsaved("a.txt", true)
				bufs.setUnsaved("c.txt", true)
			})}
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, Buffers: bufs})
			_, err := applypatch.Commit(context.Background(), pr)
			var ie *applypatch.IncompleteRollbackError
			if !errors.As(err, &ie) || !slices.Equal(ie.Paths, []string{"a.txt"}) || !errors.Is(err, &applypatch.ConflictError{Reason: applypatch.ConflictUnsaved}) {
				t.Fatalf("err = %v, want an IncompleteRollbackError naming a.txt after a ConflictUnsaved conflict", err)
			}
			if got := readTree(t, base, root)["a.txt"].data; got != "a1\nA2\n" {
				t.Errorf("a.txt = %q, want it left as written", got)
			}
		})
	})
	t.Run("edited during the commit", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			bufs := &buffers{unsaved: map[string]bool{}}
			fsys := hookFs{base, afterWriteOf("a.txt", func() { bufs.setUnsaved("a.txt", true) })}
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, Buffers: bufs})
			res, err := applypatch.Commit(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(bufs.refreshed, "a.txt") {
				t.Errorf("refreshed a buffer with unsaved edits: %v", bufs.refreshed)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "Buffer kept: a.txt") }) {
				t.Errorf("notes %q do not report the kept buffer", res.Notes)
			}
		})
	})
	t.Run("not owned is not refreshed", func(t *testing.T) {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			bufs := &buffers{unsaved: map[string]bool{}, fail: fs.ErrPermission}
			var mu sync.Mutex
			owned := true
			owner := applypatch.OwnerFunc(func(name string) bool {
				mu.Lock()
				defer mu.Unlock()
				return owned || filepath.Base(name) != "a.txt"
			})
			fsys := hookFs{base, afterWriteOf("moved.txt", func() { mu.Lock(); owned = false; mu.Unlock() })}
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, Buffers: bufs, Owner: owner})
			res, err := applypatch.Commit(context.Background(), pr)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"moved.txt", "b.txt", "c.txt"}; !slices.Equal(bufs.refreshed, want) {
				t.Errorf("refreshed %v, want %v", bufs.refreshed, want)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.HasPrefix(n, "Buffer not refreshed: c.txt") }) {
				t.Errorf("notes %q do not report the failed refresh", res.Notes)
			}
		})
	})
}

// TestCommitModes: an Update keeps the file's mode, a Move the source's, and an Add gets
// Options.FileMode exactly, whatever the umask (T6).
func TestCommitModes(t *testing.T) {
	const payload = `*** Begin Patch
*** Add File: added.txt
+new
*** Add File: sub/added.sh
+#!/bin/sh
*** Update File: c.txt
@@
-c2
+C2
*** Update File: b.txt
*** Move to: dir/moved.txt
@@
-b2
+B2
*** End Patch
`
	for _, mode := range []fs.FileMode{0, 0o664, 0o600} {
		onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
			writeFixture(t, fsys, root, abcFiles)
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, FileMode: mode})
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatal(err)
			}
			add := mode
			if add == 0 {
				add = 0o644
			}
			after := readTree(t, fsys, root)
			got := map[string]fs.FileMode{}
			for _, name := range []string{"added.txt", "sub/added.sh", "c.txt", "dir/moved.txt"} {
				got[name] = after[name].mode
			}
			want := map[string]fs.FileMode{"added.txt": add, "sub/added.sh": add, "c.txt": 0o755, "dir/moved.txt": 0o600}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FileMode %v: modes (-want +got):\n%s", mode, diff)
			}
		})
	}
}

// TestCommitReplacesAtomically: a target is never opened for writing; it is replaced by
// renaming a temporary file from its own directory, whose mode is set first, and with
// Options.Sync the file is synced before the rename and the directory after (X4).
func TestCommitReplacesAtomically(t *testing.T) {
	for _, sync := range []bool{false, true} {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			fsys := faultfs.New(base)
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root, Sync: sync})
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range fsys.Events() {
				if filepath.Base(e.Name) == "a.txt" || strings.HasPrefix(filepath.Base(e.Name), ".a.txt.") {
					rel, _ := filepath.Rel(root, e.Name)
					if strings.HasPrefix(rel, ".a.txt.applypatch-") {
						rel = "TEMP"
					}
					got = append(got, string(e.Op)+" "+rel)
				}
			}
			want := []string{"create TEMP", "write TEMP", "close TEMP", "chmod TEMP", "rename TEMP"}
			if sync {
				want = []string{"create TEMP", "write TEMP", "sync TEMP", "close TEMP", "chmod TEMP", "rename TEMP"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sync=%v: operations on a.txt (-want +got):\n%s", sync, diff)
			}
			dirSyncs := 0
			for _, e := range fsys.Events() {
				if e.Op == faultfs.OpSync && e.Name == root {
					dirSyncs++
				}
			}
			// One sync makes the commit journal's directory entry durable (X11); with
			// Options.Sync each rename is synced as well.
			if want := map[bool]int{false: 1, true: 4}[sync]; dirSyncs != want {
				t.Errorf("sync=%v: %d directory syncs, want %d", sync, dirSyncs, want)
			}
		})
	}
}

// TestCommitRenameImpossible: where rename cannot work (EXDEV, EPERM) the file is
// rewritten in place and the commit still succeeds with the right bytes and modes, and
// no temporary file left (X4).
func TestCommitRenameImpossible(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EXDEV, syscall.EPERM} {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, matrixFiles)
			if err := commitThrough(t, noRenameFs{base, errno}, root, false); err != nil {
				t.Fatalf("%v: %v", errno, err)
			}
			checkApplied(t, errno.Error(), base, root)
			for name := range readTree(t, base, root) {
				if strings.Contains(name, ".applypatch-") {
					t.Errorf("%v: temporary file %s left", errno, name)
				}
			}
		})
	}
}

// TestCommitCopyOnWriteBaseDelete: afero's CopyOnWriteFs cannot remove a file of its
// base layer (with a MemMapFs layer it says "file does not exist"); the Delete fails and
// everything already written is rolled back, so the union view is at its baseline (X5).
func TestCommitCopyOnWriteBaseDelete(t *testing.T) {
	base, layer := afero.NewMemMapFs(), afero.NewMemMapFs()
	writeFixture(t, base, "/ws", abcFiles)
	if err := layer.MkdirAll("/ws", 0o755); err != nil {
		t.Fatal(err)
	}
	fsys := afero.NewCopyOnWriteFs(afero.NewReadOnlyFs(base), layer)
	before := readTree(t, fsys, "/ws")
	const payload = `*** Begin Patch
*** Add File: new/added.txt
+new
*** Update File: a.txt
@@
-a2
+A2
*** Delete File: b.txt
*** End Patch
`
	pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: "/ws"})
	_, err := applypatch.Commit(context.Background(), pr)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "b.txt" || errors.As(err, new(*applypatch.IncompleteRollbackError)) {
		t.Fatalf("err = %v, want the refused remove of b.txt after a complete rollback", err)
	}
	if diff := treeDiff(before, readTree(t, fsys, "/ws")); len(diff) > 0 {
		t.Errorf("not rolled back: %v", diff)
	}
}

// TestCommitCancelled: a context cancelled while the commit runs stops it before the
// next write and rolls back (X5).
func TestCommitCancelled(t *testing.T) {
	onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
		writeFixture(t, base, root, abcFiles)
		before := readTree(t, base, root)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fsys := hookFs{base, afterWriteOf("b.txt", cancel)}
		pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})
		if _, err := applypatch.Commit(ctx, pr); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 {
			t.Errorf("not rolled back: %v", diff)
		}
	})
}

// TestCommitLongName: a target whose name is near the filesystem's limit of 255 bytes
// still gets a temporary file beside it, so it can be added, updated and moved.
func TestCommitLongName(t *testing.T) {
	long := strings.Repeat("n", 240) + ".txt"
	moved := strings.Repeat("é", 120) + ".txt" // 244 bytes, cut at a character boundary
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		payload := "*** Begin Patch\n*** Add File: " + long + "\n+one\n*** End Patch\n"
		if _, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: root}); err != nil {
			t.Fatal(err)
		}
		payload = "*** Begin Patch\n*** Update File: " + long + "\n*** Move to: " + moved + "\n@@\n-one\n+two\n*** End Patch\n"
		if _, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: root}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fsTree{moved: {mode: 0o644, data: "two\n"}}, readTree(t, fsys, root), cmp.AllowUnexported(treeEntry{})); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
}
