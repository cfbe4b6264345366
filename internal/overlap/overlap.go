// Package overlap decides when work is worth sharing with a second goroutine; package
// turns runs it. The work it serves is mostly system calls, which a second processor can
// make while the first makes others; file-system work is shared only on a filesystem
// known to be safe for concurrent use, so a host's own afero.Fs keeps to the calling
// goroutine.
package overlap

import (
	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/applypatch/applypatch/internal/turns"
)

// Worth reports whether n pieces of work on fsys are worth a second goroutine: at least
// least of them, a second processor to run it, and a filesystem known to be safe for
// concurrent use (see splitfs.Concurrent).
func Worth(fsys afero.Fs, n, least int) bool { return n >= least && Possible(fsys) }

// Possible reports whether work on fsys can be shared with a second goroutine at all: a
// second processor to run it, and a filesystem known to be safe for concurrent use.
func Possible(fsys afero.Fs) bool { return turns.SecondProcessor() && splitfs.Concurrent(fsys) }
