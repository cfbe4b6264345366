package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
)

// Batch starts a batch of operations and returns the function that ends it. While a
// batch is open, the Fs keeps open each directory it has worked in and works relative to
// it, instead of walking every name from the root, one opened and closed directory per
// component, on every call: a program that reads, checks and replaces many files makes
// a few system calls per file instead of dozens. Batches nest and may overlap from
// several goroutines; the directories are closed when the last one ends. End a batch
// when the work is done: it holds one or two descriptors per directory used.
//
// A kept directory is opened relative to the one above it, without following a link. By
// default it is checked again before each use (its name must still lead to it), so
// names, results and errors are exactly those of the Fs outside a batch. While the Fs
// holds the workspace lock of its whole root ([Fs.LockWorkspace] of "/"), which is how a
// commit uses a batch, a kept directory is used without that check: no commit renames
// directories while it waits for the lock, and a name swapped for a link or another
// directory does not redirect the open descriptor. A program that ignores the lock and
// renames a kept directory away then finds the batch's later writes in that directory,
// where it took the files they replace; nothing is ever written through a link. A
// directory the Fs itself removes or renames is let go at once, so that one made under
// the name afterwards is the one used.
func (f *Fs) Batch() (end func()) {
	f.kept.begin()
	var once sync.Once
	return func() { once.Do(f.kept.end) }
}

// Confinement in a batch. A directory is kept only after one Lstat, relative to the kept
// directory above it, shows a plain directory (not a symbolic link), and the directory
// opened under that name, relative to the same descriptor and without following a link,
// is that same directory (device and inode). An open descriptor pins its directory's
// inode, so it cannot be reused for another directory while it is kept.
//
// Outside the workspace lock, a kept directory is checked again the same way before each
// use: one renamed away, replaced by another, or swapped for a symbolic link is never
// written through; its name is walked again from the root, and the walk's own checks
// apply. Between that check and the use there is one system call, as there is between two
// steps of os.Root's own walk, so such a batch is exactly as confined as the walk it
// replaces.
//
// While this Fs holds the lock of its whole root, a kept directory is used without that
// check, and the reasoning is this. The descriptor was opened through the root with no
// link followed, so it is a directory that was inside the root when it was opened, and it
// stays that directory whatever later happens to names: a symbolic link or another
// directory put in its place is not followed, since nothing resolves the name again. No
// applypatch commit renames directories meanwhile: they all wait for the lock. A program
// that ignores the lock and renames the directory itself away takes a write through the
// descriptor with it, into the directory whose files were just read and checked, as it
// would take the file had it renamed the directory a moment after the write; it cannot
// make the descriptor lead anywhere else, so no link and no ".." can carry a write out of
// the root through it. The caller (a commit) checks, just before each write, that the
// path still leads to the very file it read. A name whose last component is a symbolic
// link, or that a kept directory cannot resolve by itself (a link leading above it), is
// handed to the root as a whole in both cases.

// batch is the directories an Fs keeps while batches are open.
type batch struct {
	mu sync.RWMutex
	// depth counts the open batches. It changes between 0 and 1 with mu locked, and
	// between higher values with mu locked for reading, so that a batch opened inside
	// another (a rename's) does not hold up goroutines working in kept directories.
	depth atomic.Int32
	dirs  map[dirKey]*keptDir // by parent and base name; the root is {nil, "."}
	// held counts the workspace locks of the whole root this Fs holds: while it is not
	// zero, kept directories are used without checking them again.
	held int
	// absent are the names found not to exist while the lock was held, by kept parent,
	// until this Fs next makes a name (see made): no commit makes one meanwhile, so the
	// files an Add puts in a new directory do not each ask whether it exists.
	absent map[dirKey]bool
}

// made forgets the names found absent, once this Fs has made a name that may be one.
func (b *batch) made() {
	b.mu.RLock()
	none := len(b.absent) == 0
	b.mu.RUnlock()
	if none {
		return // most often: no lock taken for writing on every file made
	}
	b.mu.Lock()
	b.absent = nil
	b.mu.Unlock()
}

// forget closes the kept directory base of parent, if there is one: the Fs removed or
// renamed that name, and a directory made there next is another. The batch is locked.
// Directories kept below it are no longer reached and close when the batch ends.
func (b *batch) forget(parent *keptDir, base string) {
	key := dirKey{parent, base}
	if d := b.dirs[key]; d != nil {
		delete(b.dirs, key)
		d.close()
	}
}

// forgetAll closes every kept directory but the root, after a removal the batch does not
// follow name by name.
func (b *batch) forgetAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for key, d := range b.dirs {
		if !d.shared {
			delete(b.dirs, key)
			d.close()
		}
	}
}

// dirKey names a kept directory by its kept parent and its name there, so that finding
// a directory n levels deep hashes n short names rather than n ever longer paths.
type dirKey struct {
	parent *keptDir
	base   string
}

// keptDir is one directory kept open by a batch.
type keptDir struct {
	root   *os.Root    // the directory, for operations on one name inside it
	file   *os.File    // the same directory, for opening files relative to it; may be nil
	id     os.FileInfo // what its name led to when it was opened
	shared bool        // the Fs's own root, which the batch does not close
}

func (b *batch) begin() {
	b.mu.RLock()
	nested := b.step(1, 1)
	b.mu.RUnlock()
	if nested {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.depth.Add(1)
	if b.dirs == nil {
		b.dirs = map[dirKey]*keptDir{}
	}
}

func (b *batch) end() {
	b.mu.RLock()
	nested := b.step(-1, 2)
	b.mu.RUnlock()
	if nested {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.depth.Add(-1) > 0 {
		return
	}
	for _, d := range b.dirs {
		d.close()
	}
	b.dirs, b.absent = nil, nil
}

// step adds by to the depth where it is at least least, and reports whether it did;
// mu is locked for reading, so it never moves the depth to or from zero.
func (b *batch) step(by, least int32) bool {
	for {
		d := b.depth.Load()
		if d < least {
			return false
		}
		if b.depth.CompareAndSwap(d, d+by) {
			return true
		}
	}
}

func (d *keptDir) close() {
	if d.file != nil {
		d.file.Close()
	}
	if !d.shared {
		d.root.Close()
	}
}

// keptDirLocked returns the kept directory named dir (cleaned, relative to the root),
// each directory on the way checked to be still where its name leads, opening each
// relative to its kept parent when needed: one pass over the name, so a directory n
// levels deep costs n checks.
func (f *Fs) keptDirLocked(dir string) (*keptDir, error) {
	d := f.keptRootLocked()
	if dir == "." {
		return d, nil
	}
	for rest := dir; rest != ""; {
		base, after, _ := strings.Cut(rest, string(filepath.Separator))
		rest = after
		next, err := f.keptChildLocked(d, base)
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// keptChildLocked returns the kept directory base inside the kept directory parent,
// checked to be still where its name leads unless the Fs holds its root's lock.
func (f *Fs) keptChildLocked(parent *keptDir, base string) (*keptDir, error) {
	key := dirKey{parent, base}
	if d := f.kept.dirs[key]; d != nil && f.kept.held > 0 {
		return d, nil // under the lock: see "Confinement in a batch"
	}
	if f.kept.held > 0 && f.kept.absent[key] {
		return nil, &os.PathError{Op: "lstat", Path: base, Err: syscall.ENOENT}
	}
	fi, err := parent.root.Lstat(base)
	if err != nil {
		if f.kept.held > 0 && errors.Is(err, fs.ErrNotExist) {
			if f.kept.absent == nil {
				f.kept.absent = map[dirKey]bool{}
			}
			f.kept.absent[key] = true
		}
		return nil, err
	}
	if !fi.IsDir() { // a symbolic link, or no longer a directory
		return nil, errNotKept
	}
	if d := f.kept.dirs[key]; d != nil {
		if os.SameFile(fi, d.id) {
			return d, nil
		}
		delete(f.kept.dirs, key) // renamed or replaced: open what the name leads to now
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
	f.kept.dirs[key] = d
	return d, nil
}

// keptRootLocked returns the root as a kept directory.
func (f *Fs) keptRootLocked() *keptDir {
	root := dirKey{base: "."}
	d := f.kept.dirs[root]
	if d == nil {
		d = &keptDir{root: f.root, file: openDirFile(f.root), shared: true}
		f.kept.dirs[root] = d
	}
	return d
}

// errNotKept is why a name is handed to the root as a whole.
var errNotKept = errors.New("rootfs: not worked on in a batch")

// openWithin opens a file in a batch, or reports false.
func (f *Fs) openWithin(name string, flag int, perm os.FileMode) (afero.File, error, bool) {
	var file handle
	err, ok := f.within(name, "open", func(d *keptDir, base string, _ bool) (err error) {
		file, err = d.open(base, flag, perm)
		return err
	})
	if !ok {
		return nil, nil, false
	}
	af, err := wrapHandle(file, err, name)
	return af, err, true
}

// linkWithin links newname to oldname between their kept directories in a batch, or
// reports false; each directory is checked as within checks it.
func (f *Fs) linkWithin(oldname, newname string) (error, bool) {
	newRel := local(newname)
	if newRel == "." || !filepath.IsLocal(newRel) {
		return nil, false
	}
	newDir, newBase := filepath.Split(newRel)
	err, ok := f.within(oldname, "link", func(d *keptDir, base string, shared bool) error {
		to, err := f.keptDirAs(cleanpath.Clean(newDir), shared)
		switch {
		case err == errExclusive:
			return err
		case err != nil:
			return errNotKept
		}
		return d.link(base, to, newBase)
	})
	return asLinkError(err, oldname, newname), ok
}

// hold marks the root's workspace lock held by this Fs until the returned function runs.
func (b *batch) hold() (release func()) {
	b.mu.Lock()
	b.held++
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.held--
			if b.held == 0 {
				b.absent = nil
			}
			b.mu.Unlock()
		})
	}
}

// renameWithin renames oldname to newname between their kept directories in a batch (one
// directory, or two), or reports false; each directory is checked as within checks it.
// With noReplace the rename fails where newname exists (see Fs.RenameNoReplace).
func (f *Fs) renameWithin(oldname, newname string, noReplace bool) (error, bool) {
	newRel := local(newname)
	if newRel == "." || !filepath.IsLocal(newRel) {
		return nil, false
	}
	newDir, newBase := filepath.Split(newRel)
	err, ok := f.within(oldname, "rename", func(d *keptDir, base string, shared bool) error {
		to := d
		if noReplace || filepath.Clean(newDir) != filepath.Dir(local(oldname)) {
			var err error
			if to, err = f.keptDirAs(cleanpath.Clean(newDir), shared); err == errExclusive {
				return err
			} else if err != nil {
				return errNotKept
			}
		}
		if shared && (f.kept.keeps(d, base) || f.kept.keeps(to, newBase)) {
			return errExclusive // a directory kept under either name is elsewhere once renamed
		}
		var err error
		switch {
		case noReplace:
			err = d.renameNoReplace(base, to, newBase)
		case to == d:
			err = d.rename(base, newBase)
		default:
			err = d.renameTo(base, to, newBase)
		}
		if err == nil && !shared {
			f.kept.forget(d, base) // a directory kept under either name is elsewhere now
			f.kept.forget(to, newBase)
		}
		return err
	})
	return asLinkError(err, oldname, newname), ok
}

// asLinkError gives the missing directory within reports for a link or rename the form
// those operations' errors have.
func asLinkError(err error, oldname, newname string) error {
	if pe, ok := err.(*os.PathError); ok {
		return &os.LinkError{Op: pe.Op, Old: oldname, New: newname, Err: pe.Err}
	}
	return err
}
