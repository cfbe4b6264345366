package overlap

import (
	"sync/atomic"
	"testing"
)

// Halves covers every index once, and a panic on its second goroutine reaches the
// caller, who can recover from it, instead of ending the process (PERF5).
func TestHalves(t *testing.T) {
	for _, n := range []int{0, 1, 2, 9, 100} {
		var seen [100]atomic.Int32
		Halves(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range n {
			if got := seen[i].Load(); got != 1 {
				t.Errorf("n=%d: index %d done %d times", n, i, got)
			}
		}
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		Halves(10, func(lo, hi int) {
			if lo > 0 {
				panic("second half")
			}
		})
		return nil
	}()
	if got != "second half" {
		t.Errorf("recovered %v, want the second half's panic", got)
	}
}
