//go:build !linux

package noreplace

import "errors"

// Renameat reports errors.ErrUnsupported: no rename refuses a name atomically here.
func Renameat(oldDir int, old string, newDir int, new string) error { return errUnsupported }

// Rename reports errors.ErrUnsupported: no rename refuses a name atomically here.
func Rename(old, new string) error { return errUnsupported }

// Unsupported reports whether err says the call cannot be made here at all.
func Unsupported(err error) bool { return errors.Is(err, errUnsupported) }
