//go:build unix

package pathwalk

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch/internal/linktree"
	"github.com/spf13/afero"
)

// deepLinkTree is a tree whose paths climb and descend through links, "..", files and
// missing names, several levels deep, for comparing resolvers.
func deepLinkTree(t *testing.T) (base, ws string) {
	base = linktree.Build(t,
		"ws/a/b/c/d/e/f.txt", "ws/a/b/c/d/e/g/", "ws/file.txt", "outside/o.txt", "outside/sub/deep/x.txt",
		"ws/a/b/up -> ../..",
		"ws/a/b/c/abs -> ${BASE}/outside/sub",
		"ws/a/b/c/d/rel -> ../../c/d/e",
		"ws/a/b/c/d/e/dangling -> ../../new/n.txt",
		"ws/a/b/c/d/e/loop -> loop",
		"ws/out -> ../outside",
		"ws/chain -> a/b/c/d/rel",
		"ws/fileln -> file.txt",
	)
	return base, filepath.Join(base, "ws")
}

// walkComponents are what random paths are made of.
var walkComponents = []string{"a", "b", "c", "d", "e", "g", "f.txt", "up", "abs", "rel", "dangling", "loop",
	"out", "chain", "fileln", "file.txt", "sub", "deep", "x.txt", "o.txt", "missing", ".", "..", "..", "outside", "ws"}

// randomPaths returns n paths of up to 14 components, some absolute.
func randomPaths(n int, base string) []string {
	rnd := rand.New(rand.NewPCG(1, 2))
	paths := make([]string, n)
	for i := range paths {
		comps := make([]string, 1+rnd.IntN(14))
		for j := range comps {
			comps[j] = walkComponents[rnd.IntN(len(walkComponents))]
		}
		paths[i] = strings.Join(comps, "/")
		if rnd.IntN(5) == 0 {
			paths[i] = filepath.Join(base, paths[i])
		}
	}
	return paths
}

// sameResolution reports whether two resolutions of one path agree: name, link, error,
// and what the final lookup found (the same file, the same mode).
func sameResolution(a, b Resolution, errA, errB error) bool {
	if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
		return false
	}
	if a.Name != b.Name || a.Linked != b.Linked || (a.Info == nil) != (b.Info == nil) {
		return false
	}
	if a.Info == nil {
		return true
	}
	x, y := a.Info.Sys().(*syscall.Stat_t), b.Info.Sys().(*syscall.Stat_t)
	return a.Info.Mode() == b.Info.Mode() && a.Info.Name() == b.Info.Name() && x != nil && y != nil &&
		x.Ino == y.Ino && x.Dev == y.Dev
}

// TestAnchoredWalkAgrees checks the walk that looks names up relative to directories it
// holds open (PERF4, F1): with an anchor at every level, every second or third level, or
// none, thousands of random paths through links, "..", absolute links, files and missing
// names resolve to the same name, link flag, error and final file, with and without a
// memo, and no directory is left open.
func TestAnchoredWalkAgrees(t *testing.T) {
	base, ws := deepLinkTree(t)
	plain := New(afero.NewOsFs())
	plain.dirs = nil
	if New(afero.NewOsFs()).dirs == nil {
		t.Skip("no relative lookups on this platform")
	}
	before := openDescriptors(t)
	for _, every := range []int{1, 2, 3, anchorEvery} {
		anchored := New(afero.NewOsFs())
		anchored.every = every
		forget := anchored.Remember()
		for i, p := range randomPaths(3000, base) {
			if i == 1500 {
				forget()
			}
			want, werr := plain.Resolve(ws, p)
			got, gerr := anchored.Resolve(ws, p)
			if !sameResolution(got, want, gerr, werr) {
				t.Fatalf("every %d: resolve(%q) = %+v, %v; in full %+v, %v", every, p, got, gerr, want, werr)
			}
		}
	}
	if after := openDescriptors(t); after != before {
		t.Errorf("%d descriptors open after the walks, %d before", after, before)
	}
}

func openDescriptors(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("cannot count descriptors:", err)
	}
	return len(entries)
}

// countingDirs counts the components of every name handed to the kernel.
type countingDirs struct {
	dirLookup
	comps *int
}

func (c countingDirs) openDir(at int, name string) (int, error) {
	*c.comps += components(name)
	return c.dirLookup.openDir(at, name)
}

func (c countingDirs) lstatAt(at int, name string) (fs.FileInfo, error) {
	*c.comps += components(name)
	return c.dirLookup.lstatAt(at, name)
}

type countingLstater struct {
	afero.Lstater
	comps *int
}

func (c countingLstater) LstatIfPossible(name string) (fs.FileInfo, bool, error) {
	*c.comps += components(name)
	return c.Lstater.LstatIfPossible(name)
}

func components(name string) int {
	return len(strings.FieldsFunc(name, func(r rune) bool { return r == '/' }))
}

// TestDeepWalkKernelWork: PERF4. Resolving a path n existing directories deep hands the
// kernel names of at most anchorEvery+1 components per lookup, so the kernel's own walk
// grows with n, not n² (a full name per lookup passes n²/2 components: 125,000 at 500).
func TestDeepWalkKernelWork(t *testing.T) {
	const depth = 500
	dir := t.TempDir()
	deep := strings.Repeat("d/", depth)
	if err := os.MkdirAll(filepath.Join(dir, deep), 0o755); err != nil {
		t.Skip("cannot create a deep directory here:", err)
	}
	r := New(afero.NewOsFs())
	if r.dirs == nil {
		t.Skip("no relative lookups on this platform")
	}
	var comps int
	r.dirs = countingDirs{r.dirs, &comps}
	r.lstat = countingLstater{r.lstat, &comps}
	res, err := r.Resolve(dir, deep+"new.txt")
	if err != nil || res.Name != filepath.Join(dir, deep, "new.txt") {
		t.Fatalf("resolve = %q, %v", res.Name, err)
	}
	bound := (depth+1)*(anchorEvery+2) + anchorEvery*components(dir)
	if comps > bound {
		t.Errorf("%d components handed to the kernel for a path %d deep, want at most %d", comps, depth, bound)
	}
	if r.Lookups() != depth+1 {
		t.Errorf("%d lookups, want one per component: %d", r.Lookups(), depth+1)
	}
}
