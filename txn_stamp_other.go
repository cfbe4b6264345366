//go:build !linux

package applypatch

import (
	"io/fs"
	"time"
)

// sameFile cannot tell on this system: every check reads the file's bytes again.
func sameFile(a, b fs.FileInfo) bool { return false }

// changeTime is not read on this system.
func changeTime(fs.FileInfo) (time.Time, bool) { return time.Time{}, false }

// sameButLinked cannot tell on this system.
func sameButLinked(a, b fs.FileInfo) bool { return false }

// otherFile cannot tell on this system.
func otherFile(a, b fs.FileInfo) bool { return false }
