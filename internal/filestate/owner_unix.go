//go:build unix

package filestate

import (
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// OwnerOf reads the owner, group and link count of a file's info, where it carries them.
func OwnerOf(fi fs.FileInfo) Owner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return Owner{UID: int(st.Uid), GID: int(st.Gid), Links: uint64(st.Nlink), Known: true}
	}
	return Owner{}
}

// Identity is who this process writes files as.
type Identity struct {
	UID, GID int
	Groups   []int
	Known    bool
}

// ProcessIdentity is read once: a process's credentials do not change under a library.
// A test may replace it to play another user.
var ProcessIdentity = sync.OnceValue(func() Identity {
	groups, _ := os.Getgroups()
	return Identity{UID: os.Geteuid(), GID: os.Getegid(), Groups: groups, Known: true}
})
