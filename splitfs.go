package applypatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/afero"
)

// splitFs is the filesystem reads and writes go through when the host gives
// Options.WorkspaceFs: a name inside the workspace is handed to the workspace filesystem
// as "/" plus its name relative to the workspace, every other name to the outside
// filesystem as it is. Callers keep using host names: files report the name they were
// opened with and errors carry it, so the transaction and the baselines need not know
// which side they are on.
type splitFs struct {
	outside, inside afero.Fs
	root            string // the resolved workspace, in the outside filesystem
}

var _ afero.Fs = (*splitFs)(nil)

// route returns the filesystem and the name it knows name by.
func (s *splitFs) route(name string) (afero.Fs, string) {
	rel, ok := within(s.root, name)
	if !ok {
		return s.outside, name
	}
	if rel == "." {
		return s.inside, "/"
	}
	return s.inside, "/" + filepath.ToSlash(rel)
}

// Name returns "applypatch-split".
func (s *splitFs) Name() string { return "applypatch-split" }

func (s *splitFs) Create(name string) (afero.File, error) {
	fsys, n := s.route(name)
	return named(fsys.Create(n))(name)
}

func (s *splitFs) Mkdir(name string, perm os.FileMode) error {
	fsys, n := s.route(name)
	return renamed(fsys.Mkdir(n, perm), name)
}

func (s *splitFs) MkdirAll(name string, perm os.FileMode) error {
	fsys, n := s.route(name)
	return renamed(fsys.MkdirAll(n, perm), name)
}

func (s *splitFs) Open(name string) (afero.File, error) {
	fsys, n := s.route(name)
	return named(fsys.Open(n))(name)
}

func (s *splitFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	fsys, n := s.route(name)
	return named(fsys.OpenFile(n, flag, perm))(name)
}

func (s *splitFs) Remove(name string) error {
	fsys, n := s.route(name)
	return renamed(fsys.Remove(n), name)
}

func (s *splitFs) RemoveAll(name string) error {
	fsys, n := s.route(name)
	return renamed(fsys.RemoveAll(n), name)
}

// Rename renames within one side; across the workspace boundary it fails with EXDEV, as
// a rename across devices does, so callers fall back to copying.
func (s *splitFs) Rename(oldname, newname string) error {
	fo, o := s.route(oldname)
	fn, n := s.route(newname)
	if fo != fn {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	err := fo.Rename(o, n)
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.LinkError{Op: le.Op, Old: oldname, New: newname, Err: le.Err}
	}
	return renamed(err, oldname)
}

func (s *splitFs) Stat(name string) (os.FileInfo, error) {
	fsys, n := s.route(name)
	fi, err := fsys.Stat(n)
	return fi, renamed(err, name)
}

func (s *splitFs) Chmod(name string, mode os.FileMode) error {
	fsys, n := s.route(name)
	return renamed(fsys.Chmod(n, mode), name)
}

func (s *splitFs) Chown(name string, uid, gid int) error {
	fsys, n := s.route(name)
	return renamed(fsys.Chown(n, uid, gid), name)
}

func (s *splitFs) Chtimes(name string, atime, mtime time.Time) error {
	fsys, n := s.route(name)
	return renamed(fsys.Chtimes(n, atime, mtime), name)
}

// renamed puts the caller's name back into a path error.
func renamed(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

// Batch opens a batch on each side whose filesystem keeps one (see batch) and returns
// the function that ends them.
func (s *splitFs) Batch() (end func()) {
	in, out := batch(s.inside), batch(s.outside)
	return func() { in(); out() }
}

// named wraps an opened file so that it reports the caller's name, and keeps its Chmod
// when it has one, so a mode is set on the open file rather than by name again.
func named(f afero.File, err error) func(name string) (afero.File, error) {
	return func(name string) (afero.File, error) {
		if err != nil {
			return nil, renamed(err, name)
		}
		nf := &namedFile{File: f, name: name}
		if _, ok := f.(fileChmodder); ok {
			return &chmodNamedFile{nf}, nil
		}
		return nf, nil
	}
}

// namedFile is a file opened through a splitFs, named as the caller named it.
type namedFile struct {
	afero.File
	name string
}

func (f *namedFile) Name() string { return f.name }

// fileChmodder is an open file whose mode can be set through it.
type fileChmodder interface{ Chmod(fs.FileMode) error }

// chmodNamedFile is a namedFile whose file has Chmod.
type chmodNamedFile struct{ *namedFile }

func (f *chmodNamedFile) Chmod(mode fs.FileMode) error {
	return renamed(f.File.(fileChmodder).Chmod(mode), f.name)
}

// batch opens a batch on fsys when it keeps one (fs/rootfs keeps each directory it
// works in open and works relative to it; see rootfs.Fs.Batch for when it checks a kept
// directory again) and returns the function that ends it.
func batch(fsys afero.Fs) (end func()) {
	if b, ok := fsys.(interface{ Batch() (end func()) }); ok {
		return b.Batch()
	}
	return func() {}
}
