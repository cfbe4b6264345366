package splitfs

import (
	"errors"
	"os"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/noreplace"
)

// Link makes newname a hard link to oldname when both lie on one side of the root's
// boundary and that filesystem has hard links.
func (s *FS) Link(oldname, newname string) error {
	fo, o := s.Route(oldname)
	fn, n := s.Route(newname)
	if fo != fn {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	return Link(fo, o, n)
}

// Link makes newname a hard link to oldname on fsys where [Linker] finds a way; others
// fail with [errors.ErrUnsupported].
func Link(fsys afero.Fs, oldname, newname string) error {
	if link := Linker(fsys); link != nil {
		return link(oldname, newname)
	}
	return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errors.ErrUnsupported}
}

// Linker returns fsys's way to make a hard link: os.Link for the operating system's
// filesystem, the Link(oldname, newname string) error method of one that has it
// (fs/rootfs, an FS), or nil where there is none.
func Linker(fsys afero.Fs) func(oldname, newname string) error {
	switch l := fsys.(type) {
	case *afero.OsFs:
		return os.Link
	case interface {
		Link(oldname, newname string) error
	}:
		return l.Link
	}
	return nil
}

// RenameNoReplace renames oldname to newname when both lie on one side of the root's
// boundary, failing where newname exists (see the package function).
func (s *FS) RenameNoReplace(oldname, newname string) error {
	fo, o := s.Route(oldname)
	fn, n := s.Route(newname)
	if fo != fn {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	err := RenameNoReplace(fo, o, n)
	var le *os.LinkError
	if errors.As(err, &le) {
		return &os.LinkError{Op: le.Op, Old: oldname, New: newname, Err: le.Err}
	}
	return err
}

// RenameNoReplace renames oldname to newname on fsys unless newname exists, which fails
// with an error matching fs.ErrExist, atomically: no other program's file there is ever
// replaced. It uses the operating system's call for afero's OsFs and the
// RenameNoReplace(oldname, newname string) error method of one that has it (fs/rootfs,
// an FS); elsewhere, and where the call cannot refuse a name (an old kernel, a
// filesystem without it), it fails with errors.ErrUnsupported and does nothing.
func RenameNoReplace(fsys afero.Fs, oldname, newname string) error {
	switch r := fsys.(type) {
	case *afero.OsFs:
		if err := noreplace.Rename(oldname, newname); err != nil {
			return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: err}
		}
		return nil
	case interface {
		RenameNoReplace(oldname, newname string) error
	}:
		return r.RenameNoReplace(oldname, newname)
	}
	return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: errors.ErrUnsupported}
}

// LstatIfPossible lstats name in the filesystem that holds it, where that has links.
func (s *FS) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	fsys, n := s.Route(name)
	if l, ok := fsys.(afero.Lstater); ok {
		return l.LstatIfPossible(n)
	}
	fi, err := fsys.Stat(n)
	return fi, false, err
}

// ReadlinkIfPossible reads the link name in the filesystem that holds it.
func (s *FS) ReadlinkIfPossible(name string) (string, error) {
	fsys, n := s.Route(name)
	if l, ok := fsys.(afero.LinkReader); ok {
		return l.ReadlinkIfPossible(n)
	}
	return "", &os.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
}

// SymlinkIfPossible creates the link newname in the filesystem that holds it.
func (s *FS) SymlinkIfPossible(oldname, newname string) error {
	fsys, n := s.Route(newname)
	if l, ok := fsys.(afero.Linker); ok {
		return l.SymlinkIfPossible(oldname, n)
	}
	return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
}
