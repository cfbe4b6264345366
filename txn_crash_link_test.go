package applypatch_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// linkPayload deletes two symbolic links, one of them dangling, then updates a file, so
// that an interruption can fall after the links are gone and before the update is done.
const linkPayload = `*** Begin Patch
*** Delete File: current.txt
*** Delete File: dangling.txt
*** Update File: a.txt
@@
-alpha
+beta
*** End Patch
`

// linkWorkspace makes a workspace holding a.txt, versions/v2.txt and the two links the
// payload deletes.
func linkWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFixture(t, afero.NewOsFs(), dir, map[string]fixtureFile{
		"a.txt":           {"alpha\n", 0o640},
		"versions/v2.txt": {"version 2\n", 0o644},
	})
	for link, target := range map[string]string{"current.txt": "versions/v2.txt", "dangling.txt": "missing.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	return dir
}

// linkAwareTree reads a tree without following links: a link is its target, a file
// its mode and bytes, so a link put back as a file with the target's bytes differs.
func linkAwareTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil || name == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, name)
		fi, err := os.Lstat(name)
		switch {
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(name)
			out[rel] = "link -> " + target
			return err
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
			return nil
		}
		b, err := os.ReadFile(name)
		out[rel] = fi.Mode().Perm().String() + " " + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// linkCrashFs is how a link crash run reaches the workspace: the faulted filesystem is
// either the one given or the workspace's own.
type linkCrashFs struct {
	name string
	opts func(t *testing.T, dir string, rule faultfs.Rule) (afero.Fs, *applypatch.Options, *faultfs.Fs)
}

var linkCrashBackends = []linkCrashFs{
	{"OsFs", func(t *testing.T, dir string, rule faultfs.Rule) (afero.Fs, *applypatch.Options, *faultfs.Fs) {
		ffs := faultfs.New(afero.NewOsFs(), rule)
		return ffs, &applypatch.Options{Workspace: dir}, ffs
	}},
	{"rootfs", func(t *testing.T, dir string, rule faultfs.Rule) (afero.Fs, *applypatch.Options, *faultfs.Fs) {
		ffs := faultfs.New(openRoot(t, dir), rule)
		return afero.NewOsFs(), &applypatch.Options{Workspace: dir, WorkspaceFs: ffs}, ffs
	}},
	{"OsFs-links", func(t *testing.T, dir string, rule faultfs.Rule) (afero.Fs, *applypatch.Options, *faultfs.Fs) {
		ffs := faultfs.New(linksOnlyOs{&afero.OsFs{}}, rule)
		return ffs, &applypatch.Options{Workspace: dir}, ffs
	}},
	{"rootfs-links", func(t *testing.T, dir string, rule faultfs.Rule) (afero.Fs, *applypatch.Options, *faultfs.Fs) {
		ffs := faultfs.New(linksOnlyRoot{openRoot(t, dir)}, rule)
		return afero.NewOsFs(), &applypatch.Options{Workspace: dir, WorkspaceFs: ffs}, ffs
	}},
}

// linksOnlyOs is the OS filesystem as a kernel or a filesystem without renameat2's
// RENAME_NOREPLACE has it: hard links, and no rename that refuses a name that exists, so
// a created file is linked into place and its temporary name removed after.
type linksOnlyOs struct{ *afero.OsFs }

func (linksOnlyOs) Link(oldname, newname string) error { return os.Link(oldname, newname) }

// linksOnlyRoot is linksOnlyOs for a root: its method of that rename is shadowed by one
// no caller asks for.
type linksOnlyRoot struct{ *rootfs.Fs }

func (linksOnlyRoot) RenameNoReplace() {}

// TestCrashMatrixRecoversLinkDelete stops a commit that deletes two symbolic links
// after its k-th filesystem operation, for every k, then runs recovery: every k ends
// with the tree at its baseline, the links back as links pointing where they did (not
// as files holding the target's bytes), or at the commit's result (X11, F1).
func TestCrashMatrixRecoversLinkDelete(t *testing.T) {
	for _, b := range linkCrashBackends {
		t.Run(b.name, func(t *testing.T) {
			dir := linkWorkspace(t)
			before := linkAwareTree(t, dir)
			fsys, opts, ffs := b.opts(t, dir, nil)
			if _, err := applypatch.Apply(context.Background(), fsys, linkPayload, opts); err != nil {
				t.Fatalf("clean run: %v", err)
			}
			total, final := ffs.Count(), linkAwareTree(t, dir)
			if _, ok := final["current.txt"]; ok || final["a.txt"] != "-rw-r----- beta\n" {
				t.Fatalf("clean run left %v", final)
			}
			relinked := 0
			for k := 0; k <= total; k++ {
				dir := linkWorkspace(t)
				fsys, opts, _ := b.opts(t, dir, haltAfter(k))
				_, err := applypatch.Apply(context.Background(), fsys, linkPayload, opts)
				cleanFs, cleanOpts, _ := b.opts(t, dir, nil)
				r, rerr := applypatch.Recover(context.Background(), cleanFs, cleanOpts)
				if rerr != nil {
					t.Fatalf("k=%d: recovery: %v", k, rerr)
				}
				after := linkAwareTree(t, dir)
				switch {
				case cmp.Equal(before, after):
					if slices.Contains(r.Restored, "current.txt") {
						relinked++
					}
				case cmp.Equal(final, after):
					if err != nil {
						t.Errorf("k=%d: the commit failed (%v) but its result stayed", k, err)
					}
				default:
					t.Fatalf("k=%d: after recovery (%+v) the tree is neither baseline nor final:\n%s",
						k, r, cmp.Diff(before, after))
				}
			}
			if relinked == 0 {
				t.Errorf("no interruption fell after the links' removal: recovery never put one back")
			}
			t.Logf("k = 0..%d: recovery re-created the links %d times", total, relinked)
		})
	}
}
