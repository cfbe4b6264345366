package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
)

// Compile-time checks that Fs and File provide the afero interfaces.
var (
	_ afero.Fs        = (*Fs)(nil)
	_ afero.Symlinker = (*Fs)(nil)
	_ afero.File      = (*File)(nil)
	_ fs.ReadDirFile  = (*File)(nil)
)

// escapeText is the message of the error os.Root returns for a name that
// leaves the root. The os package does not export that error value.
const escapeText = "path escapes from parent"

// Fs is an [afero.Fs] confined to the directory of an [os.Root].
// See the package documentation for the accepted names and the guarantee.
// An Fs is safe for concurrent use by multiple goroutines.
type Fs struct {
	root *os.Root
	kept batch // the directories kept open while a Batch is open
}

// Open opens dir with [os.OpenRoot] and returns an Fs confined to it.
// The caller must Close the Fs when done.
func Open(dir string) (*Fs, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return New(root), nil
}

// New returns an Fs confined to root. Closing the Fs closes root.
// New panics if root is nil.
func New(root *os.Root) *Fs {
	if root == nil {
		panic("rootfs: New called with a nil *os.Root")
	}
	return &Fs{root: root}
}

// Close closes the underlying [os.Root]. Files already opened through the
// Fs stay usable; later operations on the Fs fail.
func (f *Fs) Close() error {
	return f.root.Close()
}

// Root returns the underlying [os.Root].
func (f *Fs) Root() *os.Root {
	return f.root
}

// Dir returns the host directory name the root was opened with.
// Unlike every other result of the Fs, it discloses the host path.
func (f *Fs) Dir() string {
	return f.root.Name()
}

// Name returns "rootfs", the name of this afero filesystem type.
func (f *Fs) Name() string {
	return "rootfs"
}

// Create creates or truncates the named file, like [os.Root.Create].
func (f *Fs) Create(name string) (afero.File, error) {
	defer f.kept.made()
	if file, err, ok := f.openWithin(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666); ok {
		return file, err
	}
	file, err := f.root.Create(local(name))
	return wrapFile(file, err, name)
}

// Mkdir creates the named directory, like [os.Root.Mkdir].
func (f *Fs) Mkdir(name string, perm os.FileMode) error {
	defer f.kept.made()
	if err, ok := f.within(name, "mkdir", func(d *keptDir, base string, _ bool) error { return d.root.Mkdir(base, perm) }); ok {
		return pathError(err, name)
	}
	return pathError(f.root.Mkdir(local(name), perm), name)
}

// MkdirAll creates the named directory and any missing parents, like
// [os.Root.MkdirAll].
func (f *Fs) MkdirAll(name string, perm os.FileMode) error {
	defer f.kept.made()
	return pathError(f.root.MkdirAll(local(name), perm), name)
}

// Open opens the named file for reading, like [os.Root.Open].
func (f *Fs) Open(name string) (afero.File, error) {
	if file, err, ok := f.openWithin(name, os.O_RDONLY, 0); ok {
		return file, err
	}
	file, err := f.root.Open(local(name))
	return wrapFile(file, err, name)
}

// OpenFile opens the named file with the given flags and permissions,
// like [os.Root.OpenFile]. All os.O_* flags, including O_EXCL, are
// supported.
func (f *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 {
		defer f.kept.made()
	}
	if file, err, ok := f.openWithin(name, flag, perm); ok {
		return file, err
	}
	file, err := f.root.OpenFile(local(name), flag, perm)
	return wrapFile(file, err, name)
}

// Remove removes the named file or empty directory, like [os.Root.Remove].
// A symbolic link is removed itself, not its target.
func (f *Fs) Remove(name string) error {
	if err, ok := f.within(name, "remove", func(d *keptDir, base string, shared bool) error {
		if shared && f.kept.keeps(d, base) {
			return errExclusive // a directory it keeps, to forget once removed
		}
		err := d.root.Remove(base)
		if err == nil && !shared {
			f.kept.forget(d, base)
		}
		return err
	}); ok {
		return pathError(err, name)
	}
	return pathError(f.root.Remove(local(name)), name)
}

// RemoveAll removes the named file or directory tree, like
// [os.Root.RemoveAll]. It returns nil if the name does not exist, does not
// follow a final symbolic link, and refuses the root itself.
func (f *Fs) RemoveAll(name string) error {
	defer f.kept.forgetAll()
	return pathError(f.root.RemoveAll(local(name)), name)
}

// Rename renames oldname to newname, like [os.Root.Rename]. Both names
// must stay inside the root.
func (f *Fs) Rename(oldname, newname string) error {
	defer f.kept.made()
	if err, ok := f.renameWithin(oldname, newname, false); ok {
		return linkError(err, oldname, newname)
	}
	return linkError(f.root.Rename(local(oldname), local(newname)), oldname, newname)
}

// Stat returns the FileInfo of the named file, following symbolic links
// inside the root, like [os.Root.Stat].
func (f *Fs) Stat(name string) (os.FileInfo, error) {
	var fi os.FileInfo
	if err, ok := f.within(name, "stat", func(d *keptDir, base string, _ bool) (err error) { fi, err = d.root.Stat(base); return err }); ok {
		return fi, pathError(err, name)
	}
	fi, err := f.root.Stat(local(name))
	return fi, pathError(err, name)
}

// Chmod changes the mode of the named file, like [os.Root.Chmod].
func (f *Fs) Chmod(name string, mode os.FileMode) error {
	if err, ok := f.within(name, "chmod", func(d *keptDir, base string, _ bool) error { return d.root.Chmod(base, mode) }); ok {
		return pathError(err, name)
	}
	return pathError(f.root.Chmod(local(name), mode), name)
}

// Chown changes the numeric uid and gid of the named file, like
// [os.Root.Chown].
func (f *Fs) Chown(name string, uid, gid int) error {
	return pathError(f.root.Chown(local(name), uid, gid), name)
}

// Chtimes changes the access and modification times of the named file,
// like [os.Root.Chtimes].
func (f *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return pathError(f.root.Chtimes(local(name), atime, mtime), name)
}

// LstatIfPossible returns the FileInfo of the named file without following
// a final symbolic link, like [os.Root.Lstat]. The boolean is always true.
func (f *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	var fi os.FileInfo
	if err, ok := f.within(name, "lstat", func(d *keptDir, base string, _ bool) (err error) { fi, err = d.root.Lstat(base); return err }); ok {
		return fi, true, pathError(err, name)
	}
	fi, err := f.root.Lstat(local(name))
	return fi, true, pathError(err, name)
}

// ReadlinkIfPossible returns the target of the named symbolic link exactly
// as stored in the link, like [os.Root.Readlink]: a relative target stays
// relative.
func (f *Fs) ReadlinkIfPossible(name string) (string, error) {
	target, err := f.root.Readlink(local(name))
	return target, pathError(err, name)
}

// SymlinkIfPossible creates newname as a symbolic link whose target text is
// oldname, stored verbatim, like [os.Root.Symlink]. The target is not
// checked: a link pointing outside the root can be created, but the Fs
// refuses to follow it. On Windows, os.Root turns a volume-relative target
// (C:x) into an absolute one and chooses a file or directory link by what
// the target names inside the root.
func (f *Fs) SymlinkIfPossible(oldname, newname string) error {
	defer f.kept.made()
	return linkError(f.root.Symlink(oldname, local(newname)), oldname, newname)
}

// IsEscape reports whether err, or an error it wraps, is the error
// [os.Root] returns for a name that leaves the root, lexically or through
// a symbolic link. The os package does not export that error, so IsEscape
// recognises it by its message.
func IsEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == escapeText {
			return true
		}
	}
	return false
}

// local turns a caller's name into a name relative to the root: it cleans
// the name and strips a leading separator, so "/a/b" and "a/b" are the same
// file and "/" is the root. The empty name and names with a volume prefix
// are returned as they are, for os.Root to refuse.
func local(name string) string {
	if name == "" {
		return name
	}
	clean := cleanpath.Clean(name)
	if filepath.VolumeName(clean) != "" {
		return clean
	}
	rel := strings.TrimLeft(clean, string(filepath.Separator))
	if rel == "" {
		return "."
	}
	return rel
}

// pathError returns err with the path of an *os.PathError replaced by name.
// Other errors, which carry no path, are returned as they are.
func pathError(err error, name string) error {
	pe, ok := err.(*os.PathError)
	if !ok {
		return err
	}
	return &os.PathError{Op: pe.Op, Path: name, Err: pe.Err}
}

// linkError returns err with the names of an *os.LinkError replaced by the
// names the caller gave. Other errors, which carry no path, are returned as
// they are.
func linkError(err error, oldname, newname string) error {
	le, ok := err.(*os.LinkError)
	if !ok {
		return err
	}
	return &os.LinkError{Op: le.Op, Old: oldname, New: newname, Err: le.Err}
}

// File is a file opened through an [Fs]. It wraps an [os.File] so that
// Name returns the name the caller gave rather than the host path, and so
// that errors carry that name too. It implements [afero.File] and
// [fs.ReadDirFile].
type File struct {
	file handle
	name string
}

// handle is what a File works through: an *os.File, or where the platform allows, the
// bare descriptor of a file opened relative to a kept directory.
type handle interface {
	io.ReadWriteCloser
	io.ReaderAt
	io.WriterAt
	io.Seeker
	io.StringWriter
	Readdir(count int) ([]os.FileInfo, error)
	Readdirnames(n int) ([]string, error)
	ReadDir(n int) ([]fs.DirEntry, error)
	Stat() (os.FileInfo, error)
	Sync() error
	Chmod(mode os.FileMode) error
	Chown(uid, gid int) error
	Truncate(size int64) error
}

// wrapFile returns file as an afero.File named name, or a nil interface
// and err with its path replaced by name.
func wrapFile(file *os.File, err error, name string) (afero.File, error) {
	if err != nil {
		return nil, pathError(err, name)
	}
	return &File{file: file, name: name}, nil
}

// wrapHandle is wrapFile for any handle.
func wrapHandle(h handle, err error, name string) (afero.File, error) {
	if err != nil {
		return nil, pathError(err, name)
	}
	return &File{file: h, name: name}, nil
}

// Name returns the name the file was opened with, as given to the Fs.
func (f *File) Name() string {
	return f.name
}

// Close closes the file.
func (f *File) Close() error {
	return f.err(f.file.Close())
}

// Read reads up to len(b) bytes, like [os.File.Read].
func (f *File) Read(b []byte) (int, error) {
	n, err := f.file.Read(b)
	return n, f.err(err)
}

// ReadAt reads len(b) bytes at offset off, like [os.File.ReadAt].
func (f *File) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.file.ReadAt(b, off)
	return n, f.err(err)
}

// Seek sets the offset for the next Read or Write, like [os.File.Seek].
func (f *File) Seek(offset int64, whence int) (int64, error) {
	n, err := f.file.Seek(offset, whence)
	return n, f.err(err)
}

// Write writes b, like [os.File.Write].
func (f *File) Write(b []byte) (int, error) {
	n, err := f.file.Write(b)
	return n, f.err(err)
}

// WriteAt writes b at offset off, like [os.File.WriteAt].
func (f *File) WriteAt(b []byte, off int64) (int, error) {
	n, err := f.file.WriteAt(b, off)
	return n, f.err(err)
}

// WriteString writes s, like [os.File.WriteString].
func (f *File) WriteString(s string) (int, error) {
	n, err := f.file.WriteString(s)
	return n, f.err(err)
}

// Readdir reads directory entries as FileInfo values, like
// [os.File.Readdir].
func (f *File) Readdir(count int) ([]os.FileInfo, error) {
	infos, err := f.file.Readdir(count)
	return infos, f.err(err)
}

// Readdirnames reads directory entry names, like [os.File.Readdirnames].
func (f *File) Readdirnames(n int) ([]string, error) {
	names, err := f.file.Readdirnames(n)
	return names, f.err(err)
}

// ReadDir reads directory entries, like [os.File.ReadDir].
func (f *File) ReadDir(n int) ([]fs.DirEntry, error) {
	entries, err := f.file.ReadDir(n)
	return entries, f.err(err)
}

// Stat returns the FileInfo of the open file, like [os.File.Stat].
func (f *File) Stat() (os.FileInfo, error) {
	fi, err := f.file.Stat()
	return fi, f.err(err)
}

// Sync commits the file's contents to stable storage, like [os.File.Sync].
func (f *File) Sync() error {
	return f.err(f.file.Sync())
}

// Chmod changes the mode of the open file, like [os.File.Chmod]: no path is resolved
// again, so it cannot land anywhere but on this file.
func (f *File) Chmod(mode os.FileMode) error {
	return f.err(f.file.Chmod(mode))
}

// Truncate changes the size of the file, like [os.File.Truncate].
func (f *File) Truncate(size int64) error {
	return f.err(f.file.Truncate(size))
}

// err replaces the host path in an error from the os.File by f's name.
func (f *File) err(err error) error {
	return pathError(err, f.name)
}
