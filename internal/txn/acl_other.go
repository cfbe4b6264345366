//go:build !linux

package txn

// hasDefaultACL is never asked on this platform: the umask is unknown there, so every
// temporary file gets its mode after it is written.
func hasDefaultACL(dir string) (has, known bool) { return true, true }
