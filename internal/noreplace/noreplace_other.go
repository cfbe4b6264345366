//go:build !linux

package noreplace

// Renameat reports errors.ErrUnsupported: no rename refuses a name atomically here.
func Renameat(oldDir int, old string, newDir int, new string) error { return errUnsupported }

// Rename reports errors.ErrUnsupported: no rename refuses a name atomically here.
func Rename(old, new string) error { return errUnsupported }
