// Package turns shares many pieces of independent work between the calling goroutine
// and one more, which take the pieces in turn: whichever is free takes the next, so
// neither waits for the other longer than one piece, however late the second starts (a
// thread the runtime has parked can take a tenth of a millisecond or more to run again)
// and however uneven the pieces are. Two fixed halves would leave the caller waiting for
// whatever the other's late start and slower half added.
package turns

import (
	"runtime"
	"sync/atomic"
)

// Take runs f(i) once for every i in [0, n), the pieces taken lowest first, on the
// calling goroutine and, where a second processor can run it, one more; it returns once
// every call has returned. A panic in f, on either goroutine, stops the pieces not yet
// taken and is raised again on the calling goroutine once the other has stopped, as it
// would have been had every piece run there; where both panic, the caller's is raised.
func Take(n int, f func(i int)) {
	if n < 2 || runtime.GOMAXPROCS(0) < 2 {
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
	done := make(chan struct{})
	var panicked *any // the other goroutine's panic, set before done is closed
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				stop()
				panicked = &r
			}
		}()
		take()
	}()
	func() {
		defer func() {
			if r := recover(); r != nil {
				stop()
				<-done
				panic(r)
			}
		}()
		take()
	}()
	<-done
	if panicked != nil {
		panic(*panicked)
	}
}
