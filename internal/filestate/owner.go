package filestate

import (
	"fmt"
	"io/fs"
	"slices"
)

// Owner is a file's owner, group and number of hard links, where the filesystem
// tells them (an OS-backed one does; an in-memory one does not).
type Owner struct {
	UID, GID int
	Links    uint64
	Known    bool
}

// modeBits are the mode bits a commit keeps on a file it replaces, and rollback and
// recovery put back: permissions, setuid, setgid and sticky.
const modeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// ModeOf is the part of a file's mode a commit keeps.
func ModeOf(fi fs.FileInfo) fs.FileMode { return fi.Mode() & modeBits }

// KeepOwner returns why this process cannot give a rewritten file the owner and group o,
// or "" when it can (it is that owner, or may change owners).
func KeepOwner(o Owner) string {
	if !o.Known {
		return ""
	}
	id := ProcessIdentity()
	switch {
	case !id.Known || id.UID == 0:
		return ""
	case o.UID != id.UID:
		return fmt.Sprintf("it is owned by uid %d and this process runs as uid %d, so a rewritten file would change owner", o.UID, id.UID)
	case o.GID != id.GID && !slices.Contains(id.Groups, o.GID):
		return fmt.Sprintf("its group is gid %d, which this process (uid %d) is not a member of, so a rewritten file would change group", o.GID, id.UID)
	}
	return ""
}

// ChownNeeded reports whether a new file made by this process needs its owner changed
// to become o.
func ChownNeeded(o Owner) bool {
	if !o.Known {
		return false
	}
	id := ProcessIdentity()
	return !id.Known || o.UID != id.UID || o.GID != id.GID
}
