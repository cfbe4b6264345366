// Package noreplace renames a file to a name that must not exist, in one system call that
// refuses, atomically, a name another program has taken: where a plain rename would
// replace that program's file, this one fails and leaves both names as they were.
package noreplace

import "errors"

// errUnsupported is what a platform, kernel or filesystem that cannot refuse a name
// atomically gives: the caller takes another way (a hard link fails on a name that
// exists too, at the cost of removing the old name after).
var errUnsupported = errors.ErrUnsupported

// Unsupported reports whether err says the call cannot be made here at all, as opposed to
// one that failed.
func Unsupported(err error) bool { return errors.Is(err, errUnsupported) }
