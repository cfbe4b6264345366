//go:build !unix

package applypatch

import "io/fs"

// ownerOf knows no owners on this platform.
func ownerOf(fs.FileInfo) fileOwner { return fileOwner{} }

type identity struct {
	uid, gid int
	groups   []int
	known    bool
}

func processIdentity() identity { return identity{} }
