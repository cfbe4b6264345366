// Package overlap decides when work is worth sharing with a second goroutine, and runs
// work beside the caller's: in two halves, or whole. The work it serves is mostly system
// calls, which a second processor can make while the first makes others; file-system
// work is shared only on a filesystem known to be safe for concurrent use, so a host's
// own afero.Fs keeps to the calling goroutine.
package overlap

import (
	"runtime"
	"sync/atomic"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/splitfs"
)

// Worth reports whether n pieces of work on fsys are worth a second goroutine: at least
// least of them, a second processor to run it, and a filesystem known to be safe for
// concurrent use (see splitfs.Concurrent).
func Worth(fsys afero.Fs, n, least int) bool { return n >= least && Possible(fsys) }

// Possible reports whether work on fsys can be shared with a second goroutine at all: a
// second processor to run it, and a filesystem known to be safe for concurrent use.
func Possible(fsys afero.Fs) bool { return SecondProcessor() && splitfs.Concurrent(fsys) }

// SecondProcessor reports whether a second goroutine can run beside the caller's: work
// that touches no filesystem needs nothing more.
func SecondProcessor() bool { return runtime.GOMAXPROCS(0) >= 2 }

// Halves runs f on [0, n/2) on the calling goroutine and on [n/2, n) on another, and
// returns once both are done. A panic on the other goroutine is raised again on the
// calling one (see Start).
func Halves(n int, f func(lo, hi int)) {
	wait := Start(func() { f(n/2, n) })
	f(0, n/2)
	wait()
}

// Start runs f on a goroutine of its own and returns the function that waits for it to
// end. A panic in f is raised again by the first wait, on the waiting goroutine, as it
// would have been had f run there: a caller that recovers from it still can, and the
// process is not brought down from a goroutine it cannot reach. Later waits, from any
// goroutine, return once f has ended.
func Start(f func()) (wait func()) {
	done := make(chan struct{})
	var panicked atomic.Pointer[any]
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				panicked.Store(&r)
			}
		}()
		f()
	}()
	return func() {
		<-done
		if r := panicked.Swap(nil); r != nil {
			panic(*r)
		}
	}
}
