package faultfs

import (
	"errors"
	"os"
	"time"

	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/spf13/afero"
)

// writeFlags are the OpenFile flags that make a file "opened for writing".
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// Create observes [OpCreate] and creates name in the base.
func (ffs *Fs) Create(name string) (afero.File, error) {
	c := pathCall(OpCreate, "open", name, true)
	return ffs.open(c, true, func() (afero.File, error) { return ffs.base.Create(name) })
}

// Open observes [OpOpen] (a read) and opens name in the base.
func (ffs *Fs) Open(name string) (afero.File, error) {
	c := pathCall(OpOpen, "open", name, false)
	return ffs.open(c, false, func() (afero.File, error) { return ffs.base.Open(name) })
}

// OpenFile observes [OpCreate] when flag has O_CREATE and [OpOpen]
// otherwise; the operation is mutating when flag opens the file for writing.
func (ffs *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	op := OpOpen
	if flag&os.O_CREATE != 0 {
		op = OpCreate
	}
	writable := flag&writeFlags != 0
	c := pathCall(op, "open", name, writable)
	return ffs.open(c, writable, func() (afero.File, error) { return ffs.base.OpenFile(name, flag, perm) })
}

func (ffs *Fs) open(c call, writable bool, do func() (afero.File, error)) (afero.File, error) {
	return observe(ffs, c, func() (afero.File, error) {
		f, err := do()
		if f == nil {
			return nil, err
		}
		return &file{ffs: ffs, f: f, name: c.name, writable: writable}, err
	})
}

// Mkdir observes [OpMkdir].
func (ffs *Fs) Mkdir(name string, perm os.FileMode) error {
	return observeErr(ffs, pathCall(OpMkdir, "mkdir", name, true), func() error { return ffs.base.Mkdir(name, perm) })
}

// MkdirAll observes [OpMkdir] once for the whole path.
func (ffs *Fs) MkdirAll(path string, perm os.FileMode) error {
	return observeErr(ffs, pathCall(OpMkdir, "mkdir", path, true), func() error { return ffs.base.MkdirAll(path, perm) })
}

// Remove observes [OpRemove].
func (ffs *Fs) Remove(name string) error {
	return observeErr(ffs, pathCall(OpRemove, "remove", name, true), func() error { return ffs.base.Remove(name) })
}

// RemoveAll observes [OpRemove] once for the whole tree.
func (ffs *Fs) RemoveAll(path string) error {
	return observeErr(ffs, pathCall(OpRemove, "remove", path, true), func() error { return ffs.base.RemoveAll(path) })
}

// Rename observes [OpRename] under oldname; an injected fault is an
// [*os.LinkError].
func (ffs *Fs) Rename(oldname, newname string) error {
	c := linkCall(OpRename, "rename", oldname, newname, oldname)
	return observeErr(ffs, c, func() error { return ffs.base.Rename(oldname, newname) })
}

// RenameNoReplace observes [OpRename] under oldname and renames oldname to newname
// unless newname exists, which fails with an error matching [fs.ErrExist] and leaves
// both names as they were, when the base can: the operating system's filesystem, or one
// with a RenameNoReplace(oldname, newname string) error method (as fs/rootfs has).
// Otherwise it returns an [*os.LinkError] wrapping [errors.ErrUnsupported] without
// counting.
func (ffs *Fs) RenameNoReplace(oldname, newname string) error {
	switch ffs.base.(type) {
	case *afero.OsFs, interface {
		RenameNoReplace(oldname, newname string) error
	}:
	default:
		return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: errors.ErrUnsupported}
	}
	c := linkCall(OpRename, "rename", oldname, newname, oldname)
	return observeErr(ffs, c, func() error { return splitfs.RenameNoReplace(ffs.base, oldname, newname) })
}

// Stat observes [OpStat] (a read).
func (ffs *Fs) Stat(name string) (os.FileInfo, error) {
	return observe(ffs, pathCall(OpStat, "stat", name, false), func() (os.FileInfo, error) { return ffs.base.Stat(name) })
}

// Chmod observes [OpChmod].
func (ffs *Fs) Chmod(name string, mode os.FileMode) error {
	return observeErr(ffs, pathCall(OpChmod, "chmod", name, true), func() error { return ffs.base.Chmod(name, mode) })
}

// Chown observes [OpChown].
func (ffs *Fs) Chown(name string, uid, gid int) error {
	return observeErr(ffs, pathCall(OpChown, "chown", name, true), func() error { return ffs.base.Chown(name, uid, gid) })
}

// Chtimes observes [OpChtimes].
func (ffs *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return observeErr(ffs, pathCall(OpChtimes, "chtimes", name, true), func() error { return ffs.base.Chtimes(name, atime, mtime) })
}

// LstatIfPossible observes [OpStat] (a read). It delegates to the base's
// LstatIfPossible when the base is an [afero.Lstater] and to Stat otherwise,
// reporting whether Lstat was used.
func (ffs *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	lstat := false
	fi, err := observe(ffs, pathCall(OpStat, "lstat", name, false), func() (os.FileInfo, error) {
		l, ok := ffs.base.(afero.Lstater)
		if !ok {
			return ffs.base.Stat(name)
		}
		fi, called, err := l.LstatIfPossible(name)
		lstat = called
		return fi, err
	})
	return fi, lstat, err
}

// SymlinkIfPossible observes [OpSymlink] under newname when the base is an
// [afero.Linker]; otherwise it returns an [*os.LinkError] wrapping
// [afero.ErrNoSymlink] without counting.
func (ffs *Fs) SymlinkIfPossible(oldname, newname string) error {
	l, ok := ffs.base.(afero.Linker)
	if !ok {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
	}
	c := linkCall(OpSymlink, "symlink", oldname, newname, newname)
	return observeErr(ffs, c, func() error { return l.SymlinkIfPossible(oldname, newname) })
}

// Link observes [OpLink] under newname and makes newname a hard link to
// oldname in the base, when the base has hard links: the operating system's
// filesystem, or one with a Link(oldname, newname string) error method (as
// fs/rootfs has). Otherwise it returns an [*os.LinkError] wrapping
// [errors.ErrUnsupported] without counting.
func (ffs *Fs) Link(oldname, newname string) error {
	link := splitfs.Linker(ffs.base)
	if link == nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errors.ErrUnsupported}
	}
	c := linkCall(OpLink, "link", oldname, newname, newname)
	return observeErr(ffs, c, func() error { return link(oldname, newname) })
}

// ReadlinkIfPossible observes [OpReadlink] (a read) when the base is an
// [afero.LinkReader]; otherwise it returns an [*os.PathError] wrapping
// [afero.ErrNoReadlink] without counting.
func (ffs *Fs) ReadlinkIfPossible(name string) (string, error) {
	r, ok := ffs.base.(afero.LinkReader)
	if !ok {
		return "", &os.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
	}
	return observe(ffs, pathCall(OpReadlink, "readlink", name, false), func() (string, error) { return r.ReadlinkIfPossible(name) })
}
