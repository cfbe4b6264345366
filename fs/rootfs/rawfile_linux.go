//go:build linux

package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/applypatch/applypatch/internal/eintr"
	"github.com/applypatch/applypatch/internal/sysstat"
)

// rawFile is a file opened relative to a kept directory, used through its descriptor
// with one system call per operation. An os.File made from a descriptor first asks the
// kernel for its flags (to learn whether it may use the poller, which a regular file
// never does); a commit opens two files for each one it updates, so it is made only when
// a directory is read. Like an os.File it may be used from several goroutines, except
// that Close must not race with another call.
type rawFile struct {
	fd     int
	name   string // the host name, for errors (File shows its own) and directory reads
	append bool   // opened with O_APPEND, where WriteAt is refused as os.File refuses it
	dir    *os.File
	closed bool
	clean  runtime.Cleanup // closes a descriptor nobody closed
}

var _ handle = (*rawFile)(nil)

func newRawFile(fd int, name string, flag int) *rawFile {
	r := &rawFile{fd: fd, name: name, append: flag&os.O_APPEND != 0}
	r.clean = runtime.AddCleanup(r, func(fd int) { syscall.Close(fd) }, fd)
	return r
}

// errAt is the error of a failed call, as os.File reports it.
func (r *rawFile) errAt(op string, err error) error {
	if r.closed {
		err = os.ErrClosed
	}
	return &os.PathError{Op: op, Path: r.name, Err: err}
}

func (r *rawFile) Close() error {
	if r.closed {
		return r.errAt("close", os.ErrClosed)
	}
	r.closed = true
	if r.dir != nil {
		return r.dir.Close()
	}
	r.clean.Stop()
	if err := syscall.Close(r.fd); err != nil {
		return &os.PathError{Op: "close", Path: r.name, Err: err}
	}
	return nil
}

func (r *rawFile) Read(b []byte) (int, error) {
	if r.closed {
		return 0, r.errAt("read", os.ErrClosed)
	}
	if len(b) == 0 {
		return 0, nil
	}
	n, err := eintr.Count(func() (int, error) { return syscall.Read(r.fd, b) })
	switch {
	case err != nil:
		return 0, r.errAt("read", err)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *rawFile) ReadAt(b []byte, off int64) (int, error) {
	if r.closed {
		return 0, r.errAt("read", os.ErrClosed)
	}
	if off < 0 {
		return 0, r.errAt("readat", errors.New("negative offset"))
	}
	return r.all("read", b, io.EOF, func(p []byte, done int) (int, error) { return syscall.Pread(r.fd, p, off+int64(done)) })
}

func (r *rawFile) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, r.errAt("seek", os.ErrClosed)
	}
	n, err := syscall.Seek(r.fd, offset, whence)
	if err != nil {
		return 0, r.errAt("seek", err)
	}
	return n, nil
}

func (r *rawFile) Write(b []byte) (int, error) {
	if r.closed {
		return 0, r.errAt("write", os.ErrClosed)
	}
	return r.all("write", b, io.ErrShortWrite, func(p []byte, _ int) (int, error) { return syscall.Write(r.fd, p) })
}

func (r *rawFile) WriteAt(b []byte, off int64) (int, error) {
	switch {
	case r.closed:
		return 0, r.errAt("write", os.ErrClosed)
	case r.append:
		return 0, errors.New("os: invalid use of WriteAt on file opened with O_APPEND")
	case off < 0:
		return 0, r.errAt("writeat", errors.New("negative offset"))
	}
	return r.all("write", b, io.ErrShortWrite, func(p []byte, done int) (int, error) { return syscall.Pwrite(r.fd, p, off+int64(done)) })
}

func (r *rawFile) WriteString(s string) (int, error) { return r.Write([]byte(s)) }

// all calls do until every byte of b is transferred, as os.File's loops do: a short count
// is continued from where it stopped, an interrupted call retried, and a call that moves
// nothing ends with atEnd. do gets the rest of b and how much is done already.
func (r *rawFile) all(op string, b []byte, atEnd error, do func(p []byte, done int) (int, error)) (int, error) {
	done := 0
	for done < len(b) {
		n, err := eintr.Count(func() (int, error) { return do(b[done:], done) })
		if err != nil {
			return done, r.errAt(op, err)
		}
		if n == 0 {
			return done, atEnd
		}
		done += n
	}
	return done, nil
}

// osFile is the descriptor as an os.File, made once for reading directory entries; the
// os.File closes the descriptor from then on.
func (r *rawFile) osFile() (*os.File, error) {
	if r.closed {
		return nil, r.errAt("readdirent", os.ErrClosed)
	}
	if r.dir == nil {
		r.clean.Stop()
		r.dir = os.NewFile(uintptr(r.fd), r.name)
	}
	return r.dir, nil
}

func (r *rawFile) Readdir(count int) ([]os.FileInfo, error) {
	d, err := r.osFile()
	if err != nil {
		return nil, err
	}
	return d.Readdir(count)
}

func (r *rawFile) Readdirnames(n int) ([]string, error) {
	d, err := r.osFile()
	if err != nil {
		return nil, err
	}
	return d.Readdirnames(n)
}

func (r *rawFile) ReadDir(n int) ([]fs.DirEntry, error) {
	d, err := r.osFile()
	if err != nil {
		return nil, err
	}
	return d.ReadDir(n)
}

func (r *rawFile) Stat() (os.FileInfo, error) {
	if r.closed {
		return nil, r.errAt("stat", os.ErrClosed)
	}
	fi := &sysstat.Info{Base: filepath.Base(r.name)}
	if err := eintr.Err(func() error { return syscall.Fstat(r.fd, &fi.Stat) }); err != nil {
		return nil, r.errAt("stat", err)
	}
	return fi, nil
}

func (r *rawFile) Sync() error {
	if r.closed {
		return r.errAt("sync", os.ErrClosed)
	}
	if err := eintr.Err(func() error { return syscall.Fsync(r.fd) }); err != nil {
		return r.errAt("sync", err)
	}
	return nil
}

func (r *rawFile) Chmod(mode os.FileMode) error {
	if r.closed {
		return r.errAt("chmod", os.ErrClosed)
	}
	if err := eintr.Err(func() error { return syscall.Fchmod(r.fd, syscallMode(mode)) }); err != nil {
		return r.errAt("chmod", err)
	}
	return nil
}

func (r *rawFile) Chown(uid, gid int) error {
	if r.closed {
		return r.errAt("chown", os.ErrClosed)
	}
	if err := eintr.Err(func() error { return syscall.Fchown(r.fd, uid, gid) }); err != nil {
		return r.errAt("chown", err)
	}
	return nil
}

func (r *rawFile) Truncate(size int64) error {
	if r.closed {
		return r.errAt("truncate", os.ErrClosed)
	}
	if err := eintr.Err(func() error { return syscall.Ftruncate(r.fd, size) }); err != nil {
		return r.errAt("truncate", err)
	}
	return nil
}
