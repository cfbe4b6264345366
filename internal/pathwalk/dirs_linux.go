//go:build linux && (amd64 || arm64)

package pathwalk

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"unsafe"

	"github.com/applypatch/applypatch/internal/sysstat"
	"github.com/spf13/afero"
)

// osDirs is dirLookup for the operating system's filesystem. A directory is opened for
// reading, so one its owner may enter but not list is not opened: names below it are
// looked up in full, which finds the same.
type osDirs struct{}

// osDirsFor returns osDirs where fsys is the operating system's filesystem as afero.OsFs
// reaches it, else nil.
func osDirsFor(fsys afero.Fs) dirLookup {
	if _, ok := fsys.(*afero.OsFs); ok {
		return osDirs{}
	}
	return nil
}

func (osDirs) openDir(at int, name string) (int, error) {
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	for {
		fd, err := syscall.Openat(at, name, flags, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

func (osDirs) lstatAt(at int, name string) (fs.FileInfo, error) {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return nil, err
	}
	fi := &sysstat.Info{Base: filepath.Base(name)}
	for {
		_, _, errno := syscall.Syscall6(sysFstatat, uintptr(at), uintptr(unsafe.Pointer(p)),
			uintptr(unsafe.Pointer(&fi.Stat)), atSymlinkNofollow, 0, 0)
		switch errno {
		case 0:
			return fi, nil
		case syscall.EINTR:
			continue
		}
		return nil, errno
	}
}

func (osDirs) closeDir(fd int) { syscall.Close(fd) }

// atSymlinkNofollow is AT_SYMLINK_NOFOLLOW: fstatat reports a final link itself.
const atSymlinkNofollow = 0x100
