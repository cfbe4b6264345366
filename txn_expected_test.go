package applypatch_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

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
