package applypatch

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
)

// removeMade removes, after an undo, the directories the change created that the undo
// left empty, deepest first: the tree is then as it was before the change. A directory
// that holds anything (a file a review kept back, or one made since) stays, and so does
// anything that is no longer a directory.
func (pr *Proposal) removeMade(made []string) {
	if f, err := pr.fencer(); err == nil {
		removeMadeDirs(f, made)
	}
}

// removeMadeDirs is removeMade through the fence f.
func removeMadeDirs(f *fence.Fence, made []string) {
	if len(made) == 0 {
		return
	}
	fsys := f.Files()
	lstat := fsys.Stat
	if l, ok := fsys.(afero.Lstater); ok {
		lstat = func(name string) (fs.FileInfo, error) { fi, _, err := l.LstatIfPossible(name); return fi, err }
	}
	for _, d := range slices.Backward(made) {
		r, err := f.Classify(d, false)
		if err != nil || r.Name != filepath.Join(f.Real(), filepath.FromSlash(d)) {
			continue // it leads elsewhere now, through a link: not the directory the change made
		}
		if fi, err := lstat(r.Name); err == nil && fi.IsDir() && emptyDir(fsys, r.Name) {
			fsys.Remove(r.Name) // not every afero.Fs refuses to remove a directory that holds files
		}
	}
}

// emptyDir reports whether the directory name holds nothing.
func emptyDir(fsys afero.Fs, name string) bool {
	d, err := fsys.Open(name)
	if err != nil {
		return false
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}
