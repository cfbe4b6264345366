package turns

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

// TestStart: wait returns once f has ended; a panic in f is raised by the first wait
// alone, so a caller that recovers and waits again is not stopped twice.
func TestStart(t *testing.T) {
	var ran atomic.Bool
	Start(func() { ran.Store(true) })()
	if !ran.Load() {
		t.Fatal("wait returned before f ended")
	}
	wait := Start(func() { panic("in f") })
	got := func() (r any) {
		defer func() { r = recover() }()
		wait()
		return nil
	}()
	if got != "in f" {
		t.Fatalf("the first wait recovered %v, want f's panic", got)
	}
	wait() // the panic was raised once; this returns
}
