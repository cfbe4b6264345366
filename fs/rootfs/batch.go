package rootfs

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/afero"
)

// Batch starts a batch of operations and returns the function that ends it. While a
// batch is open, the Fs keeps open each directory it has worked in and works relative to
// it, instead of walking every name from the root, one opened and closed directory per
// component, on every call: a program that reads, checks and replaces many files makes
// a few system calls per file instead of dozens. Names, results and errors are exactly
// those of the Fs outside a batch. Batches nest and may overlap from several goroutines;
// the directories are closed when the last one ends. End a batch when the work is done:
// it holds one or two descriptors per directory used.
//
// A transaction opens a batch while it holds its workspace lock and ends it when it lets
// the lock go, so no other commit renames directories under it meanwhile.
func (f *Fs) Batch() (end func()) {
	f.kept.begin()
	var once sync.Once
	return func() { once.Do(f.kept.end) }
}

// Confinement in a batch. A kept directory is only used after one Lstat, relative to the
// kept directory above it, shows that its name still leads to that same directory (the
// same device and inode, and not a symbolic link). A directory renamed away, replaced by
// another, or swapped for a symbolic link is therefore never written through: its name is
// walked again from the root, and the walk's own checks apply. Between that check and the
// use there is one system call, as there is between two steps of os.Root's own walk, so a
// batch is exactly as confined as the walk it replaces. An open descriptor pins its
// directory's inode, so the inode cannot be reused for another directory while it is
// kept. A name whose last component is a symbolic link, or that a kept directory cannot
// resolve by itself (a link leading above it), is handed to the root as a whole.

// batch is the directories an Fs keeps while batches are open.
type batch struct {
	mu    sync.Mutex
	depth int
	dirs  map[string]*keptDir // by name relative to the root, cleaned; "." is the root
}

// keptDir is one directory kept open by a batch.
type keptDir struct {
	root   *os.Root    // the directory, for operations on one name inside it
	file   *os.File    // the same directory, for opening files relative to it; may be nil
	id     os.FileInfo // what its name led to when it was opened
	shared bool        // the Fs's own root, which the batch does not close
}

func (b *batch) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.depth++
	if b.dirs == nil {
		b.dirs = map[string]*keptDir{}
	}
}

func (b *batch) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.depth--; b.depth > 0 {
		return
	}
	for _, d := range b.dirs {
		d.close()
	}
	b.dirs = nil
}

func (d *keptDir) close() {
	if d.file != nil {
		d.file.Close()
	}
	if !d.shared {
		d.root.Close()
	}
}

// within runs op on the kept directory holding name and reports true, or reports false
// when name is not worked on in a batch: no batch is open, a component on the way is not
// a plain directory, or op met a symbolic link that its directory cannot resolve by
// itself. The caller then hands name to the root. op runs with the batch locked, so no
// kept directory is closed while it is used.
func (f *Fs) within(name string, op func(d *keptDir, base string) error) (error, bool) {
	rel := local(name)
	if rel == "." || !filepath.IsLocal(rel) {
		return nil, false
	}
	dir, base := filepath.Split(rel)
	f.kept.mu.Lock()
	defer f.kept.mu.Unlock()
	if f.kept.depth == 0 {
		return nil, false
	}
	d, err := f.keptDirLocked(filepath.Clean(dir))
	if err != nil {
		return nil, false
	}
	err = op(d, base)
	if errors.Is(err, errNotKept) || IsEscape(err) {
		return nil, false
	}
	return err, true
}

// keptDirLocked returns the kept directory named dir, checked to be still where its
// name leads, opening it relative to its (kept) parent when needed.
func (f *Fs) keptDirLocked(dir string) (*keptDir, error) {
	if dir == "." {
		return f.keptRootLocked(), nil
	}
	parent, err := f.keptDirLocked(filepath.Dir(dir))
	if err != nil {
		return nil, err
	}
	base := filepath.Base(dir)
	fi, err := parent.root.Lstat(base)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() { // a symbolic link, or no longer a directory
		return nil, errNotKept
	}
	if d := f.kept.dirs[dir]; d != nil {
		if os.SameFile(fi, d.id) {
			return d, nil
		}
		delete(f.kept.dirs, dir) // renamed or replaced: open what the name leads to now
		d.close()
	}
	sub, err := parent.root.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	d := &keptDir{root: sub}
	if d.id, err = sub.Stat("."); err != nil || !os.SameFile(fi, d.id) {
		sub.Close() // swapped between the Lstat and the open: leave it to the root's walk
		return nil, errNotKept
	}
	d.file = openDirFile(sub)
	f.kept.dirs[dir] = d
	return d, nil
}

// keptRootLocked returns the root as a kept directory.
func (f *Fs) keptRootLocked() *keptDir {
	d := f.kept.dirs["."]
	if d == nil {
		d = &keptDir{root: f.root, file: openDirFile(f.root), shared: true}
		f.kept.dirs["."] = d
	}
	return d
}

// errNotKept is why a name is handed to the root as a whole.
var errNotKept = errors.New("rootfs: not worked on in a batch")

// openWithin opens a file in a batch, or reports false.
func (f *Fs) openWithin(name string, flag int, perm os.FileMode) (afero.File, error, bool) {
	var file *os.File
	err, ok := f.within(name, func(d *keptDir, base string) (err error) {
		file, err = d.open(base, flag, perm)
		return err
	})
	if !ok {
		return nil, nil, false
	}
	af, err := wrapFile(file, err, name)
	return af, err, true
}
