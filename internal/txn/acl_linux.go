//go:build linux

package txn

import (
	"errors"
	"syscall"
)

// hasDefaultACL reports whether the host directory dir has a default ACL, which gives
// files created in it their permissions in place of the umask, and whether that is
// known: only a directory known to have none (no such attribute, or a filesystem
// without ACLs) reports false, and one that cannot be asked (not made yet, say)
// reports true, not known.
func hasDefaultACL(dir string) (has, known bool) {
	_, err := syscall.Getxattr(dir, "system.posix_acl_default", nil)
	if errors.Is(err, syscall.ENODATA) || errors.Is(err, syscall.ENOTSUP) {
		return false, true
	}
	return true, err == nil
}
