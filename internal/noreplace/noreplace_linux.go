//go:build linux

package noreplace

import (
	"fmt"
	"syscall"
	"unsafe"
)

// renameNoreplace is RENAME_NOREPLACE, renameat2's flag that makes it fail with EEXIST
// where the new name exists (Linux 3.15; tmpfs, ext4, xfs, btrfs and most others).
const renameNoreplace = 1

// atFdcwd is AT_FDCWD: a name relative to the working directory, or absolute.
const atFdcwd = -100

// Rename is Renameat for names relative to the working directory, or absolute.
func Rename(old, new string) error { return Renameat(atFdcwd, old, atFdcwd, new) }

// Renameat renames old in the directory oldDir to new in newDir (descriptors of open
// directories), as renameat does, except that where new exists it fails, with an error
// matching fs.ErrExist, and nothing moves. A kernel without renameat2 (ENOSYS), a
// filesystem without the flag (EINVAL), and a platform without the call give an error
// matching errors.ErrUnsupported, and nothing moves.
func Renameat(oldDir int, old string, newDir int, new string) error {
	if sysRenameat2 == 0 {
		return errUnsupported
	}
	p, err := syscall.BytePtrFromString(old)
	if err != nil {
		return err
	}
	q, err := syscall.BytePtrFromString(new)
	if err != nil {
		return err
	}
	for {
		_, _, errno := syscall.Syscall6(sysRenameat2, uintptr(oldDir), uintptr(unsafe.Pointer(p)), uintptr(newDir), uintptr(unsafe.Pointer(q)), renameNoreplace, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		case syscall.ENOSYS, syscall.EINVAL:
			return fmt.Errorf("%w: %w", errno, errUnsupported)
		}
		return errno
	}
}
