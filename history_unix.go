//go:build unix

package applypatch

import (
	"io/fs"
	"strconv"
	"syscall"
)

// fileIdentity is the device and inode of a file, which a copy of it does not share.
func fileIdentity(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
	return ""
}
