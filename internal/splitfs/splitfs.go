// Package splitfs routes the names of one host filesystem to two: names inside a root
// directory to a filesystem confined to it, every other name to the host's. It is how a
// commit reads and writes the workspace through an os.Root-backed filesystem while paths
// outside it, which need authority first, stay on the host's filesystem.
package splitfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
)

// An FS hands a name inside its root to the inside filesystem as "/" plus its name
// relative to the root, and every other name to the outside filesystem as it is. Callers
// keep using host names: files report the name they were opened with and errors carry
// it, so they need not know which side a name is on.
type FS struct {
	outside, inside afero.Fs
	root            string
}

var (
	_ afero.Fs         = (*FS)(nil)
	_ afero.Lstater    = (*FS)(nil)
	_ afero.LinkReader = (*FS)(nil)
	_ afero.Linker     = (*FS)(nil)
)

// New returns the filesystem that routes names inside root (a cleaned, resolved name in
// outside) to inside, which must be rooted at root, and every other name to outside.
func New(outside, inside afero.Fs, root string) *FS {
	return &FS{outside: outside, inside: inside, root: root}
}

// Within returns name relative to root, and whether it lies inside root: on a separator
// boundary (/w/proj-sibling is not inside /w/proj), root itself included as ".". Both
// are cleaned names.
func Within(root, name string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, root); ok && cleanpath.IsClean(name) {
		// The common case, a name below root as spelled: its rest is what Rel would say.
		// A clean name holds no "//", "." or ".." component, so neither does a root it
		// starts with, beyond a last one the cases below send to Rel.
		switch {
		case rest == "":
			return ".", true
		case rest[0] == filepath.Separator:
			return rest[1:], true
		case os.IsPathSeparator(root[len(root)-1]): // root is the filesystem's root
			return rest, true
		}
	}
	if !foldsCase && filepath.IsAbs(root) && filepath.IsAbs(name) && cleanpath.IsClean(root) && cleanpath.IsClean(name) {
		// Two clean absolute names: name lies in root only as spelled, which it is not.
		// Most names a commit classifies are asked about against directories they lie
		// outside (the history's, the state's), and Rel would build a "../" name for each.
		return "", false
	}
	rel, err := filepath.Rel(root, name)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// foldsCase is whether filepath.Rel matches names without regard to case, as it does on
// Windows: there a name spelled otherwise than its root may still lie in it.
const foldsCase = runtime.GOOS == "windows"

// Route returns the filesystem that holds name and the name it knows it by.
func (s *FS) Route(name string) (afero.Fs, string) {
	rel, ok := Within(s.root, name)
	if !ok {
		return s.outside, name
	}
	if rel == "." {
		return s.inside, "/"
	}
	return s.inside, "/" + filepath.ToSlash(rel)
}

// Name returns "applypatch-split".
func (s *FS) Name() string { return "applypatch-split" }

func (s *FS) Create(name string) (afero.File, error) {
	fsys, n := s.Route(name)
	return named(fsys.Create(n))(name)
}

func (s *FS) Mkdir(name string, perm os.FileMode) error {
	fsys, n := s.Route(name)
	return renamed(fsys.Mkdir(n, perm), name)
}

func (s *FS) MkdirAll(name string, perm os.FileMode) error {
	fsys, n := s.Route(name)
	return renamed(fsys.MkdirAll(n, perm), name)
}

func (s *FS) Open(name string) (afero.File, error) {
	fsys, n := s.Route(name)
	return named(fsys.Open(n))(name)
}

func (s *FS) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	fsys, n := s.Route(name)
	return named(fsys.OpenFile(n, flag, perm))(name)
}

func (s *FS) Remove(name string) error {
	fsys, n := s.Route(name)
	return renamed(fsys.Remove(n), name)
}

func (s *FS) RemoveAll(name string) error {
	fsys, n := s.Route(name)
	return renamed(fsys.RemoveAll(n), name)
}

// Rename renames within one side; across the root's boundary it fails with EXDEV, as a
// rename across devices does, so callers fall back to copying.
func (s *FS) Rename(oldname, newname string) error {
	fo, o := s.Route(oldname)
	fn, n := s.Route(newname)
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

func (s *FS) Stat(name string) (os.FileInfo, error) {
	fsys, n := s.Route(name)
	fi, err := fsys.Stat(n)
	return fi, renamed(err, name)
}

func (s *FS) Chmod(name string, mode os.FileMode) error {
	fsys, n := s.Route(name)
	return renamed(fsys.Chmod(n, mode), name)
}

func (s *FS) Chown(name string, uid, gid int) error {
	fsys, n := s.Route(name)
	return renamed(fsys.Chown(n, uid, gid), name)
}

func (s *FS) Chtimes(name string, atime, mtime time.Time) error {
	fsys, n := s.Route(name)
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

// Concurrent reports whether fsys is known to be safe for use by several goroutines at
// once: the operating system's, afero's in-memory one, one confined to an os.Root (as
// fs/rootfs is, by its contract), and an FS both of whose sides are. Another afero.Fs
// may keep state without a lock, so a caller that would share it keeps to one goroutine.
func Concurrent(fsys afero.Fs) bool {
	switch fsys := fsys.(type) {
	case *FS:
		return Concurrent(fsys.inside) && Concurrent(fsys.outside)
	case *afero.OsFs, *afero.MemMapFs:
		return true
	case interface{ Root() *os.Root }:
		return true
	}
	return false
}
