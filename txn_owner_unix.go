//go:build unix

package applypatch

import (
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// ownerOf reads the owner, group and link count of a file's info, where it carries them.
func ownerOf(fi fs.FileInfo) fileOwner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileOwner{uid: int(st.Uid), gid: int(st.Gid), links: uint64(st.Nlink), known: true}
	}
	return fileOwner{}
}

// identity is who this process writes files as.
type identity struct {
	uid, gid int
	groups   []int
	known    bool
}

// processIdentity is read once: a process's credentials do not change under a library.
var processIdentity = sync.OnceValue(func() identity {
	groups, _ := os.Getgroups()
	return identity{uid: os.Geteuid(), gid: os.Getegid(), groups: groups, known: true}
})
