//go:build linux

package txn

import (
	"errors"
	"syscall"
)

// hasDefaultACL reports whether the host directory dir has a default ACL, which gives
// files created in it their permissions in place of the umask. Only a directory known to
// have none (no such attribute, or a filesystem without ACLs) reports false.
func hasDefaultACL(dir string) bool {
	_, err := syscall.Getxattr(dir, "system.posix_acl_default", nil)
	return !errors.Is(err, syscall.ENODATA) && !errors.Is(err, syscall.ENOTSUP)
}
