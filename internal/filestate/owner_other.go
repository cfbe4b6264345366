//go:build !unix

package filestate

import "io/fs"

// OwnerOf knows no owners on this platform.
func OwnerOf(fs.FileInfo) Owner { return Owner{} }

// Identity is who this process writes files as; unknown on this platform.
type Identity struct {
	UID, GID int
	Groups   []int
	Known    bool
}

// ProcessIdentity is unknown on this platform.
func ProcessIdentity() Identity { return Identity{} }
