//go:build unix

package history

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/eintr"
)

// openKept are the flags an entry and a kept baseline are opened with: without following
// a link at the last component or blocking on a FIFO.
const openKept = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// openDir are the flags a directory of the store is listed with: a directory only, not
// through a link, never waiting on a FIFO planted in its place.
const openDir = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// readKept reads the kept file name of the length want, never following a link or
// waiting on a FIFO. On the operating system's filesystem it uses the bare descriptor,
// three calls a file: an undo reads one for each file it restores, and an os.File would
// add a call to the poller, which a regular file never uses, and a cleanup to register.
// It asks for one byte more than want, so a longer file is told by the bytes it gives,
// without asking its size first; a short read is read on to the end. What the bytes
// are, whatever kind of file gave them, the caller's checksum decides.
func readKept(fsys afero.Fs, name string, want int64) ([]byte, error) {
	if _, ok := fsys.(*afero.OsFs); !ok {
		return readKeptFile(fsys, name, want)
	}
	fd, err := eintr.Count(func() (int, error) { return syscall.Open(name, openKept|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return nil, errLost(&fs.PathError{Op: "open", Path: name, Err: err})
	}
	defer syscall.Close(fd)
	data := make([]byte, want+1)
	off := 0
	for off < len(data) {
		n, err := eintr.Count(func() (int, error) { return syscall.Read(fd, data[off:]) })
		if err != nil {
			return nil, errUnread(&fs.PathError{Op: "read", Path: name, Err: err})
		}
		if off += n; n == 0 || off == int(want) {
			break // the end, or as much as recorded from a file that gives all it has at once
		}
	}
	if off != int(want) {
		return nil, errNotRecorded
	}
	return data[:want:want], nil
}

// isLink reports whether opening a file with openKept failed because it is a symbolic
// link: not an entry the store wrote.
func isLink(err error) bool { return errors.Is(err, syscall.ELOOP) }
