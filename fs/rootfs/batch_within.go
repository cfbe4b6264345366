package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/applypatch/applypatch/internal/cleanpath"
)

// within runs op on the kept directory holding name and reports true, or reports false
// when name is not worked on in a batch: no batch is open, a component on the way is not
// a plain directory, or op met a symbolic link that its directory cannot resolve by
// itself. The caller then hands name to the root. op runs with the batch locked, so no
// kept directory is closed while it is used.
//
// A directory on the way that does not exist makes name not exist either, which is what
// the root's walk would find: within reports that at once, as a *os.PathError for opName,
// without opening anything more. While the lock is held, the directory is remembered as
// absent until this Fs makes a name, so an Add below a new directory asks once per
// directory, not once per file; a program that ignores the lock and makes it meanwhile
// has its files there found absent, which a commit's creation of one refuses (its hard
// link fails on a name that exists) and an update of one reports as a missing file.
//
// op runs with the batch locked for reading (shared set) where every directory on the
// way is kept already and the Fs holds its root's lock, so that goroutines working in
// kept directories do not wait for one another. An op that would change what the batch
// keeps (forget a directory, keep another) returns errExclusive there before it does
// anything, and runs again with the batch locked.
func (f *Fs) within(name, opName string, op func(d *keptDir, base string, shared bool) error) (error, bool) {
	rel := local(name)
	if rel == "." || !filepath.IsLocal(rel) {
		return nil, false
	}
	dir, base := filepath.Split(rel)
	dir = cleanpath.Clean(dir)
	f.kept.mu.RLock()
	if d, err, ok := f.keptDirShared(dir); ok {
		if err == nil {
			err = op(d, base, true)
		} else {
			err = &os.PathError{Op: opName, Path: name, Err: syscall.ENOENT} // as below
		}
		f.kept.mu.RUnlock()
		if err != errExclusive {
			return ranWithin(err)
		}
	} else {
		f.kept.mu.RUnlock()
	}
	f.kept.mu.Lock()
	defer f.kept.mu.Unlock()
	if f.kept.depth.Load() == 0 {
		return nil, false
	}
	d, err := f.keptDirLocked(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &os.PathError{Op: opName, Path: name, Err: syscall.ENOENT}, true
	}
	if err != nil {
		return nil, false
	}
	return ranWithin(op(d, base, false))
}

// errExclusive is what an op run with the batch shared returns, having done nothing,
// where it must change what the batch keeps: within runs it again with the batch locked.
var errExclusive = errors.New("rootfs: needs the batch locked")

// ranWithin is what within reports of an op's error: handed to the root as a whole
// where the kept directory could not resolve the name by itself.
func ranWithin(err error) (error, bool) {
	if errors.Is(err, errNotKept) || IsEscape(err) {
		return nil, false
	}
	return err, true
}

// keptDirAs returns the kept directory named dir (cleaned, relative to the root) for an
// op of within: with the batch shared, only one kept already, else errExclusive.
func (f *Fs) keptDirAs(dir string, shared bool) (*keptDir, error) {
	if !shared {
		return f.keptDirLocked(dir)
	}
	if d, err, ok := f.keptDirShared(dir); ok {
		return d, err
	}
	return nil, errExclusive
}

// keeps reports whether the batch keeps the directory base of parent.
func (b *batch) keeps(parent *keptDir, base string) bool {
	return b.dirs[dirKey{parent, base}] != nil
}

// keptDirShared returns the kept directory named dir where the batch, locked for
// reading, can hand it out without a look or a change: a batch is open, the Fs holds its
// root's lock (see "Confinement in a batch"), and every directory on the way is kept
// already; or, there, a *os.PathError where a directory on the way was found absent
// while the lock is held. It reports false where the batch must be locked.
func (f *Fs) keptDirShared(dir string) (*keptDir, error, bool) {
	if f.kept.depth.Load() == 0 || f.kept.held == 0 {
		return nil, nil, false
	}
	d := f.kept.dirs[dirKey{base: "."}]
	for rest := dir; d != nil && rest != "." && rest != ""; {
		base, after, _ := strings.Cut(rest, string(filepath.Separator))
		rest = after
		key := dirKey{d, base}
		if d = f.kept.dirs[key]; d == nil && f.kept.absent[key] {
			return nil, &os.PathError{Op: "lstat", Path: base, Err: syscall.ENOENT}, true
		}
	}
	return d, nil, d != nil
}
