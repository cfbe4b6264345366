package applypatch

import (
	"fmt"
	"io/fs"
	"slices"
)

// fileOwner is a file's owner, group and number of hard links, where the filesystem
// tells them (an OS-backed one does; an in-memory one does not).
type fileOwner struct {
	uid, gid int
	links    uint64
	known    bool
}

// modeBits are the mode bits a commit keeps on a file it replaces, and rollback and
// recovery put back: permissions, setuid, setgid and sticky.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// modeOf is the part of a file's mode a commit keeps.
func modeOf(fi fs.FileInfo) fs.FileMode { return fi.Mode() & modeBits }

// keepOwner returns why this process cannot give a rewritten file the owner and group o,
// or "" when it can (it is that owner, or may change owners).
func keepOwner(o fileOwner) string {
	if !o.known {
		return ""
	}
	id := processIdentity()
	switch {
	case !id.known || id.uid == 0:
		return ""
	case o.uid != id.uid:
		return fmt.Sprintf("it is owned by uid %d and this process runs as uid %d, so a rewritten file would change owner", o.uid, id.uid)
	case o.gid != id.gid && !slices.Contains(id.groups, o.gid):
		return fmt.Sprintf("its group is gid %d, which this process (uid %d) is not a member of, so a rewritten file would change group", o.gid, id.uid)
	}
	return ""
}

// chownNeeded reports whether a new file made by this process needs its owner changed
// to become o.
func chownNeeded(o fileOwner) bool {
	if !o.known {
		return false
	}
	id := processIdentity()
	return !id.known || o.uid != id.uid || o.gid != id.gid
}
