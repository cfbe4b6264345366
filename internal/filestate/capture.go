package filestate

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/prefault"
)

// Capture reads the baseline of one path, authored as the payload wrote it: it opens the
// path once and learns its kind, mode and size from the open file, so the bytes and the
// mode are of one file. A file over limit bytes is a [*TooLarge], one that cannot be read
// a [*ReadError]. What the file said of itself is kept in stamps.
func Capture(fsys afero.Fs, name, authored string, limit int64, stamps Stamps) (Baseline, error) {
	at := time.Now()
	f, err := fsys.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO opens without waiting for a writer
	if err != nil {
		return captureUnopened(fsys, name, authored, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Baseline{}, Unreadable(fsys, name, authored, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return Baseline{}, Unreadable(fsys, name, authored, &fs.PathError{Op: "read", Path: name, Err: errNotRegular})
	}
	return captureOpen(fsys, f, fi, authored, name, at, limit, stamps)
}

// errNotRegular is the cause of a path that is neither a regular file nor a directory:
// a FIFO, a socket or a device, whose bytes are no file's content.
var errNotRegular = errors.New("not a regular file (a FIFO, a socket or a device), so it has no text to patch")

// captureOpen reads the baseline of an open path, opened at at.
func captureOpen(fsys afero.Fs, f afero.File, fi fs.FileInfo, authored, name string, at time.Time, limit int64, stamps Stamps) (Baseline, error) {
	if fi.IsDir() {
		return Baseline{Exists: true, Dir: true, Mode: fi.Mode()}, nil
	}
	if fi.Size() > limit {
		return Baseline{}, &TooLarge{Path: authored, Size: fi.Size(), Limit: limit}
	}
	_, stamped := ChangeTime(fi)
	b, err := readSized(f, fi.Size(), stamped && fi.Mode().IsRegular())
	if err != nil {
		return Baseline{}, Unreadable(fsys, name, authored, err)
	}
	if int64(len(b)) == fi.Size() {
		stamps.Keep(name, fi, at)
	}
	return Baseline{Exists: true, Mode: ModeOf(fi), Bytes: b}, nil
}

// captureUnopened is the baseline of a path that cannot be opened: absent, a directory
// that may not be read (which is still a directory), or unreadable.
func captureUnopened(fsys afero.Fs, name, authored string, err error) (Baseline, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return Baseline{}, nil
	}
	if fi, serr := fsys.Stat(name); serr == nil && fi.IsDir() {
		return Baseline{Exists: true, Dir: true, Mode: fi.Mode()}, nil
	}
	return Baseline{}, Unreadable(fsys, name, authored, err)
}

// readSized reads r to its end into a buffer sized for size bytes and the end of file,
// so a file that keeps its size is read without growing or copying the buffer. With
// sized, a regular file whose metadata is stamped, it stops once size bytes are read,
// without the read that would only find the end: a file that grew since its size was
// measured has other metadata than the stamp, so the check before its write reads it
// again and finds it changed.
func readSized(r io.Reader, size int64, sized bool) ([]byte, error) {
	b := prefault.Bytes(int(size) + 1)
	for {
		if sized && size > 0 && int64(len(b)) == size {
			return b, nil
		}
		if len(b) == cap(b) { // the file grew since it was measured
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case errors.Is(err, io.EOF):
			return b, nil
		case err != nil:
			return nil, err
		}
	}
}

// Unreadable is the fact of a path that cannot be read. When a parent of it is a file
// (ENOTDIR), it names that parent as authored; it always carries the sanitised cause.
func Unreadable(fsys afero.Fs, name, authored string, err error) *ReadError {
	re := &ReadError{Path: authored, Err: fserr.Sanitize(err, name, authored)}
	if errors.Is(err, syscall.ENOTDIR) {
		if parent, ok := fileParent(fsys, name, authored); ok {
			re.Parent = parent
		}
	}
	return re
}

// A ReadError is a path that could not be read. Err is the sanitised cause; Parent is,
// when a parent of the path is a file, that parent as authored.
type ReadError struct {
	Path, Parent string
	Err          error
}

// Error names the path and the cause; the caller words the public error.
func (e *ReadError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *ReadError) Unwrap() error { return e.Err }

// A TooLarge file has Size bytes, over the Limit its caller reads.
type TooLarge struct {
	Path        string
	Size, Limit int64
}

// Error names the path; the caller words the public error.
func (e *TooLarge) Error() string { return e.Path + " is over the size limit" }

// fileParent finds the parent of name that is a file and returns the authored path's
// parent at the same depth, so that only what the payload wrote is shown.
func fileParent(fsys afero.Fs, name, authored string) (string, bool) {
	up := path.Clean(filepath.ToSlash(authored))
	for dir := filepath.Dir(name); ; dir = filepath.Dir(dir) {
		if up = path.Dir(up); up == "." || up == "/" || up == ".." || strings.HasSuffix(up, "/..") {
			return "", false // the authored path has no parent left to name
		}
		if fi, err := fsys.Stat(dir); err == nil {
			return up, !fi.IsDir()
		}
	}
}
