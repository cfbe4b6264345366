package rootfs

import (
	"errors"
	"os"
	"syscall"
	"unsafe"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/eintr"
	"github.com/applypatch/applypatch/internal/noreplace"
)

// open opens the file base inside the kept directory: one openat relative to the kept
// descriptor, refusing to follow a final symbolic link (which the root's walk then
// follows, confined), used through the bare descriptor (see rawFile), without the
// poller's probing, which a regular file does not need.
func (d *keptDir) open(base string, flag int, perm os.FileMode) (handle, error) {
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
	// Named like the files os.Root opens, by host path: an os.File made to read its
	// entries uses its name to stat them, and File never shows it.
	return newRawFile(fd, cleanpath.Join(d.file.Name(), base), flag), nil
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

// rename renames base to newBase inside the kept directory: one renameat relative to
// the kept descriptor, which renames a final symbolic link itself, as the root does.
func (d *keptDir) rename(base, newBase string) error {
	if d.file == nil {
		return d.root.Rename(base, newBase)
	}
	fd := int(d.file.Fd())
	err := eintr.Err(func() error { return syscall.Renameat(fd, base, fd, newBase) })
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: base, New: newBase, Err: err}
	}
	return nil
}

// renameTo renames base in the kept directory d to newBase in the kept directory to: one
// renameat between the kept descriptors. It reports errNotKept when either directory has
// no descriptor.
func (d *keptDir) renameTo(base string, to *keptDir, newBase string) error {
	if d.file == nil || to.file == nil {
		return errNotKept
	}
	from, dst := int(d.file.Fd()), int(to.file.Fd())
	err := eintr.Err(func() error { return syscall.Renameat(from, base, dst, newBase) })
	if err != nil {
		return &os.LinkError{Op: "renameat", Old: base, New: newBase, Err: err}
	}
	return nil
}

// link makes newBase in the kept directory to a hard link to base in d: one linkat
// between the kept descriptors, which links a final symbolic link itself, as the root
// does. It reports errNotKept when either directory has no descriptor.
func (d *keptDir) link(base string, to *keptDir, newBase string) error {
	if d.file == nil || to.file == nil {
		return errNotKept
	}
	from, dst := int(d.file.Fd()), int(to.file.Fd())
	err := eintr.Err(func() error { return linkat(from, base, dst, newBase) })
	if err != nil {
		return &os.LinkError{Op: "linkat", Old: base, New: newBase, Err: err}
	}
	return nil
}

// renameNoReplace renames base in d to newBase in the kept directory to, or fails where
// newBase exists: one renameat2 between the kept descriptors, which refuses a name that
// exists atomically. It reports errNotKept when either directory has no descriptor.
func (d *keptDir) renameNoReplace(base string, to *keptDir, newBase string) error {
	if d.file == nil || to.file == nil {
		return errNotKept
	}
	if err := noreplace.Renameat(int(d.file.Fd()), base, int(to.file.Fd()), newBase); err != nil {
		return &os.LinkError{Op: "renameat2", Old: base, New: newBase, Err: err}
	}
	return nil
}

// linkat is linkat(2) without flags (a final symbolic link is linked itself), which
// the syscall package does not wrap on every Linux architecture.
func linkat(fromDir int, from string, toDir int, to string) error {
	p, err := syscall.BytePtrFromString(from)
	if err != nil {
		return err
	}
	q, err := syscall.BytePtrFromString(to)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fromDir), uintptr(unsafe.Pointer(p)), uintptr(toDir), uintptr(unsafe.Pointer(q)), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
