// Package overlap decides when file-system work is worth sharing with a second
// goroutine, and runs work in two halves. The work it serves is mostly system calls,
// which a second processor can make while the first makes others; it is shared only on a
// filesystem known to be safe for concurrent use, so a host's own afero.Fs keeps to the
// calling goroutine.
package overlap

import (
	"runtime"
	"sync"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/splitfs"
)

// Worth reports whether n pieces of work on fsys are worth a second goroutine: at least
// least of them, a second processor to run it, and a filesystem known to be safe for
// concurrent use (see splitfs.Concurrent).
func Worth(fsys afero.Fs, n, least int) bool {
	return n >= least && runtime.GOMAXPROCS(0) >= 2 && splitfs.Concurrent(fsys)
}

// Halves runs f on [0, n/2) on the calling goroutine and on [n/2, n) on another, and
// returns once both are done. A panic on the other goroutine is raised again on the
// calling one, as it would have been had f run there: a caller that recovers from it
// still can, and the process is not brought down from a goroutine it cannot reach.
func Halves(n int, f func(lo, hi int)) {
	var panicked any
	var wg sync.WaitGroup
	wg.Go(func() {
		defer func() { panicked = recover() }()
		f(n/2, n)
	})
	f(0, n/2)
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
