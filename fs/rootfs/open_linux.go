package rootfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// open opens the file base inside the kept directory: one openat relative to the kept
// descriptor, refusing to follow a final symbolic link (which the root's walk then
// follows, confined), and an os.File made from the descriptor without the poller's
// probing, which a regular file does not need.
func (d *keptDir) open(base string, flag int, perm os.FileMode) (*os.File, error) {
	if d.file == nil {
		return d.root.OpenFile(base, flag, perm)
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(int(d.file.Fd()), base, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, syscallMode(perm))
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, errNotKept
	case err != nil:
		return nil, &os.PathError{Op: "openat", Path: base, Err: err}
	}
	// Named like the files os.Root opens, by host path: the os.File uses its name to
	// stat directory entries, and File never shows it.
	return os.NewFile(uintptr(fd), filepath.Join(d.file.Name(), base)), nil
}

// syscallMode is perm as open(2) takes it.
func syscallMode(perm os.FileMode) uint32 {
	m := uint32(perm.Perm())
	if perm&os.ModeSetuid != 0 {
		m |= syscall.S_ISUID
	}
	if perm&os.ModeSetgid != 0 {
		m |= syscall.S_ISGID
	}
	if perm&os.ModeSticky != 0 {
		m |= syscall.S_ISVTX
	}
	return m
}

// openDirFile opens a kept directory's descriptor for openat, or returns nil, when the
// directory's root then serves every open.
func openDirFile(r *os.Root) *os.File {
	f, err := r.Open(".")
	if err != nil {
		return nil
	}
	f.Fd() // a directory: in blocking mode for good, so the descriptor stays usable
	return f
}
