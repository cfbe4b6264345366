//go:build linux

package txn

import (
	"errors"
	"os"
	"syscall"
)

// MoveTo moves the journal directory into the directory to, as name, by one rename
// between descriptors, and reports whether it did. It refuses, moving nothing, where the
// commit's filesystem is not the operating system's, the two directories lie on
// different filesystems, or name exists. What it moved must be the very directory the
// commit made: anything else found there (a directory swapped in meanwhile) is moved
// back, and MoveTo reports false.
func (k *Kept) MoveTo(to *os.File, name string) bool {
	if k.made == nil {
		return false
	}
	from, old, ok := k.parent()
	if !ok {
		return false
	}
	defer from.Close()
	src, dst := int(from.Fd()), int(to.Fd())
	if renameat(src, old, dst, name) != nil {
		return false
	}
	if made, ok := k.made.Sys().(*syscall.Stat_t); ok && sameDir(dst, name, made) {
		return true
	}
	renameat(dst, name, src, old) // not the commit's: put it back where it was found
	return false
}

// sameDir reports whether name in the directory dir is the directory made, and not a
// symbolic link.
func sameDir(dir int, name string, made *syscall.Stat_t) bool {
	fd, err := syscall.Openat(dir, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Dev == made.Dev && st.Ino == made.Ino
}

// renameat is renameat(2), tried again when a signal interrupts it.
func renameat(fromDir int, from string, toDir int, to string) error {
	for {
		err := syscall.Renameat(fromDir, from, toDir, to)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
