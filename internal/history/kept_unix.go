//go:build unix

package history

import (
	"io"
	"io/fs"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/eintr"
)

// openKept are the flags a kept baseline is opened with: without following a link at
// the last component or blocking on a FIFO.
const openKept = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// readKept reads the kept file name of the length want: a regular file, never a link
// or a FIFO. On the operating system's filesystem it uses the bare descriptor, four
// calls a file: an undo reads one for each file it restores, and an os.File would add
// a call to the poller, which a regular file never uses, and a cleanup to register.
func readKept(fsys afero.Fs, name string, want int64) ([]byte, error) {
	if _, ok := fsys.(*afero.OsFs); !ok {
		return readKeptFile(fsys, name, want)
	}
	fd, err := eintr.Count(func() (int, error) { return syscall.Open(name, openKept|syscall.O_CLOEXEC, 0) })
	if err != nil {
		return nil, errLost(&fs.PathError{Op: "open", Path: name, Err: err})
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size != want {
		return nil, errNotRecorded
	}
	data := make([]byte, want)
	for off := 0; off < len(data); {
		n, err := eintr.Count(func() (int, error) { return syscall.Read(fd, data[off:]) })
		if err != nil {
			return nil, errUnread(&fs.PathError{Op: "read", Path: name, Err: err})
		}
		if n == 0 {
			return nil, errUnread(io.ErrUnexpectedEOF) // cut short since its size was read
		}
		off += n
	}
	return data, nil
}
