package applypatch_test

import (
	"context"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// An fsBackend is a filesystem the transaction tests run on, with its workspace root.
type fsBackend struct {
	name string
	new  func(t testing.TB) (afero.Fs, string)
}

// fsBackends are the filesystems every transaction property is proven on: MemMapFs hides
// missing MkdirAll calls and OsFs hides nothing (afero #392, #216).
var fsBackends = []fsBackend{
	{"MemMapFs", func(t testing.TB) (afero.Fs, string) {
		fsys := afero.NewMemMapFs()
		if err := fsys.MkdirAll("/ws", 0o755); err != nil {
			t.Fatal(err)
		}
		return fsys, "/ws"
	}},
	{"OsFs", func(t testing.TB) (afero.Fs, string) {
		return afero.NewOsFs(), t.TempDir()
	}},
}

// onEachFs runs fn as a subtest on every backend.
func onEachFs(t *testing.T, fn func(t *testing.T, fsys afero.Fs, root string)) {
	t.Helper()
	for _, b := range fsBackends {
		t.Run(b.name, func(t *testing.T) {
			fsys, root := b.new(t)
			fn(t, fsys, root)
		})
	}
}

// A fixtureFile is one file of a fixture tree.
type fixtureFile struct {
	data string
	mode fs.FileMode
}

// treeEntry is what a tree holds at one path.
type treeEntry struct {
	dir  bool
	mode fs.FileMode
	data string
}

// fsTree is a whole directory tree, keyed by slash path relative to its root.
type fsTree map[string]treeEntry

// writeFixture creates files under root with their modes (set exactly, whatever the umask).
func writeFixture(t testing.TB, fsys afero.Fs, root string, files map[string]fixtureFile) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f := files[name]
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := fsys.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, full, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := fsys.Chmod(full, f.mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads the whole tree under root: every directory and file, with modes and
// bytes.
func readTree(t testing.TB, fsys afero.Fs, root string) fsTree {
	t.Helper()
	out := fsTree{}
	err := afero.Walk(fsys, root, func(name string, fi fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, name)
		if err != nil || rel == "." {
			return err
		}
		e := treeEntry{dir: fi.IsDir(), mode: fi.Mode().Perm()}
		if !e.dir {
			b, err := afero.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			e.data = string(b)
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatalf("readTree: %v", err)
	}
	return out
}

// treeDiff returns, sorted, every path whose entry differs between two trees, present
// in one only included.
func treeDiff(a, b fsTree) []string {
	var out []string
	for name, e := range a {
		if f, ok := b[name]; !ok || f != e {
			out = append(out, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// mustResolve parses and resolves a payload, failing the test on error.
func mustResolve(t testing.TB, fsys afero.Fs, payload string, opts *applypatch.Options) *applypatch.Proposal {
	t.Helper()
	p, err := applypatch.Parse(payload)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	pr, err := applypatch.Resolve(context.Background(), fsys, p, opts)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return pr
}

// changeOf returns the change of a proposal whose authored path is path.
func changeOf(t testing.TB, pr *applypatch.Proposal, path string) *applypatch.Change {
	t.Helper()
	for _, c := range pr.Changes() {
		if c.Op.Path == path {
			return c
		}
	}
	t.Fatalf("no change for %s", path)
	return nil
}

// deselectAll drops a change from the selection: an Add, Delete or Move whole, an Update
// hunk by hunk.
func deselectAll(c *applypatch.Change) {
	c.Selected = false
	for _, h := range c.Hunks {
		h.Selected = false
	}
}
