package turns

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestTakeEachOnce: every piece runs exactly once, whatever their number, on one
// processor or two (PERF5).
func TestTakeEachOnce(t *testing.T) {
	for _, procs := range []int{1, 2} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		for _, n := range []int{0, 1, 2, 3, 16, 1000} {
			seen := make([]atomic.Int32, n)
			Take(n, func(i int) { seen[i].Add(1) })
			for i := range seen {
				if got := seen[i].Load(); got != 1 {
					t.Errorf("procs=%d n=%d: piece %d ran %d times", procs, n, i, got)
				}
			}
		}
	}
}

// TestTakeUneven: a piece that takes long holds up one goroutine only; the other takes
// every piece left meanwhile, so the call takes about as long as the long piece, not
// half the pieces each (PERF5). It counts pieces, not time: the goroutine that ran the
// long piece ran no other after it.
func TestTakeUneven(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	const n = 64
	release := make(chan struct{})
	var after atomic.Int32 // pieces that ran while piece 0 was held
	var held atomic.Bool
	Take(n, func(i int) {
		if i == 0 {
			held.Store(true)
			<-release
			held.Store(false)
			return
		}
		if held.Load() {
			after.Add(1)
		}
		if i == n-1 {
			close(release)
		}
	})
	if got := after.Load(); got != n-1 {
		t.Errorf("%d of the %d other pieces ran while the first was held, want all", got, n-1)
	}
}

// TestTakePanics: a panic in a piece reaches the caller, who can recover from it,
// whichever goroutine ran the piece, and the pieces not yet taken are not run.
func TestTakePanics(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, bad := range []int{0, 1, 5} {
		var ran atomic.Int32
		got := func() (r any) {
			defer func() { r = recover() }()
			Take(100, func(i int) {
				if i == bad {
					panic(i)
				}
				time.Sleep(100 * time.Microsecond)
				ran.Add(1)
			})
			return nil
		}()
		if got != bad {
			t.Errorf("piece %d panicked; recovered %v", bad, got)
		}
		if n := ran.Load(); n >= 99 {
			t.Errorf("piece %d panicked, and %d of the other 99 pieces still ran", bad, n)
		}
	}
}
