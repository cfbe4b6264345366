//go:build !linux

package rootfs

import "os"

// open opens the file base inside the kept directory, through its root.
func (d *keptDir) open(base string, flag int, perm os.FileMode) (*os.File, error) {
	return d.root.OpenFile(base, flag, perm)
}

// openDirFile returns nil: the kept directory's root serves every open.
func openDirFile(*os.Root) *os.File { return nil }
