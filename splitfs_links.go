package applypatch

import (
	"os"

	"github.com/spf13/afero"
)

var (
	_ afero.Lstater    = (*splitFs)(nil)
	_ afero.LinkReader = (*splitFs)(nil)
	_ afero.Linker     = (*splitFs)(nil)
)

// LstatIfPossible lstats name in the filesystem that holds it, where that has links.
func (s *splitFs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fsys, n := s.route(name)
	if l, ok := fsys.(afero.Lstater); ok {
		return l.LstatIfPossible(n)
	}
	fi, err := fsys.Stat(n)
	return fi, false, err
}

// ReadlinkIfPossible reads the link name in the filesystem that holds it.
func (s *splitFs) ReadlinkIfPossible(name string) (string, error) {
	fsys, n := s.route(name)
	if l, ok := fsys.(afero.LinkReader); ok {
		return l.ReadlinkIfPossible(n)
	}
	return "", &os.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
}

// SymlinkIfPossible creates the link newname in the filesystem that holds it.
func (s *splitFs) SymlinkIfPossible(oldname, newname string) error {
	fsys, n := s.route(newname)
	if l, ok := fsys.(afero.Linker); ok {
		return l.SymlinkIfPossible(oldname, n)
	}
	return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
}
