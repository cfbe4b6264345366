//go:build unix

package sysstat

import (
	"io/fs"
	"syscall"
)

// OtherFile reports whether two infos, both with an identity, show different files
// (another device or inode).
func OtherFile(a, b fs.FileInfo) bool {
	x, ok := a.Sys().(*syscall.Stat_t)
	y, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && (x.Dev != y.Dev || x.Ino != y.Ino)
}
