//go:build unix

package txn

import (
	"os"
	"syscall"
)

// ownerOf returns the user owning the directory dir.
func ownerOf(dir string) (uint32, bool) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
