//go:build !linux

package rootfs

import "os"

// open opens the file base inside the kept directory, through its root.
func (d *keptDir) open(base string, flag int, perm os.FileMode) (handle, error) {
	return d.root.OpenFile(base, flag, perm)
}

// openDirFile returns nil: the kept directory's root serves every open.
func openDirFile(*os.Root) *os.File { return nil }

// rename renames base to newBase inside the kept directory, through its root.
func (d *keptDir) rename(base, newBase string) error { return d.root.Rename(base, newBase) }

// link reports errNotKept: the root links by name.
func (d *keptDir) link(base string, to *keptDir, newBase string) error { return errNotKept }

// renameTo reports errNotKept: the root renames by name.
func (d *keptDir) renameTo(base string, to *keptDir, newBase string) error { return errNotKept }

// renameNoReplace reports errNotKept: no rename refuses a name atomically here.
func (d *keptDir) renameNoReplace(base string, to *keptDir, newBase string) error { return errNotKept }
