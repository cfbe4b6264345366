// Package turns runs work beside the calling goroutine, on one more: a function on its
// own (Start), two halves of a range (Halves), or many pieces of independent work that
// the two goroutines take in turn (Take). A panic on the other goroutine is raised again
// on the calling one, where the caller can recover from it, never ending the process
// from a goroutine the caller cannot reach. Whether sharing work pays is the caller's to
// decide (see package overlap).
package turns

import (
	"runtime"
	"sync/atomic"
)

// Pieces is how many pieces a pass over a large input is cut into for Take: enough that
// neither goroutine waits for the other longer than about a sixteenth of the pass.
const Pieces = 16

// SecondProcessor reports whether a second goroutine can run beside the caller's: all
// that work touching no filesystem needs to be worth sharing (see package overlap for
// work that does).
func SecondProcessor() bool { return runtime.GOMAXPROCS(0) >= 2 }

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

// Halves runs f on [0, n/2) on the calling goroutine and on [n/2, n) on another, and
// returns once both are done. A panic on the other goroutine is raised again on the
// calling one (see Start).
func Halves(n int, f func(lo, hi int)) {
	wait := Start(func() { f(n/2, n) })
	f(0, n/2)
	wait()
}

// Take runs f(i) once for every i in [0, n), the pieces taken lowest first, on the
// calling goroutine and, where a second processor can run it, one more, whichever is
// free taking the next: neither waits for the other longer than one piece, however late
// the second starts (a thread the runtime has parked can take a tenth of a millisecond
// or more to run again) and however uneven the pieces are, where with two fixed halves
// the caller waited for whatever the other's late start and slower half added. It
// returns once every call has returned. A panic in f, on either goroutine, stops the
// pieces not yet taken and is raised again on the calling goroutine once the other has
// stopped; where both panic, the caller's is raised.
func Take(n int, f func(i int)) {
	if n < 2 || !SecondProcessor() {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	take := func() {
		for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
			f(int(i))
		}
	}
	stop := func() { next.Store(int64(n)) }
	wait := Start(func() {
		defer func() {
			if r := recover(); r != nil {
				stop()
				panic(r) // raised again by wait
			}
		}()
		take()
	})
	func() {
		defer func() {
			if r := recover(); r != nil {
				stop()
				func() {
					defer func() { recover() }() // the other's panic gives way to this one
					wait()
				}()
				panic(r)
			}
		}()
		take()
	}()
	wait()
}
