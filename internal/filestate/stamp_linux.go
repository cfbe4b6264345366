//go:build linux

package filestate

import (
	"io/fs"
	"syscall"
	"time"
)

// sameFile reports whether two infos of one path show the same file with the same
// content metadata: device, inode, size, mode, owner, links, and the modification and
// change times to the nanosecond. Any write, truncation, chmod, chown or rename over
// the path changes one of them.
func sameFile(a, b fs.FileInfo) bool {
	x, ok := a.Sys().(*syscall.Stat_t)
	y, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && x.Dev == y.Dev && x.Ino == y.Ino && x.Size == y.Size && x.Mode == y.Mode &&
		x.Uid == y.Uid && x.Gid == y.Gid && x.Nlink == y.Nlink && x.Mtim == y.Mtim && x.Ctim == y.Ctim
}

// ChangeTime is the file's status change time, where its info carries one.
func ChangeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)), true // int32 on 32-bit platforms
}

// sameButLinked reports whether b shows the file of a with one hard link more and
// nothing else changed but its change time, which the link moves forward.
func sameButLinked(a, b fs.FileInfo) bool {
	x, ok := a.Sys().(*syscall.Stat_t)
	y, ok2 := b.Sys().(*syscall.Stat_t)
	return ok && ok2 && x.Dev == y.Dev && x.Ino == y.Ino && x.Size == y.Size && x.Mode == y.Mode &&
		x.Uid == y.Uid && x.Gid == y.Gid && y.Nlink == x.Nlink+1 && x.Mtim == y.Mtim
}
