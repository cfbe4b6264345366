package wslock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// NoticeAfter is how long a lock is waited for before the context's watcher is told
// (see [Watch]). A variable, so that tests can shorten it.
var NoticeAfter = 800 * time.Millisecond

// A WaitError is a wait for a lock that ended with its context before the lock was had.
// Its text names the holder but not the directory, which is a host path.
type WaitError struct {
	Dir    string // the directory (or name) whose lock was waited for
	Holder int    // the process that holds it, 0 when not known
	Err    error  // why the wait ended: the context's cause
}

func (e *WaitError) Error() string {
	if e.Holder > 0 {
		return fmt.Sprintf("held by process %d; %v", e.Holder, e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns why the wait ended.
func (e *WaitError) Unwrap() error { return e.Err }

func waitError(ctx context.Context, dir string, holder int) error {
	return &WaitError{Dir: dir, Holder: holder, Err: context.Cause(ctx)}
}

// waiter is the watch a context carries: whom to tell, once, when a lock has been waited
// for since at.
type waiter struct {
	mu       sync.Mutex
	say      func(dir string, holder int)
	at       time.Time
	over     bool        // told, or the watch has ended
	claimed  atomic.Bool // a lock of this package has taken the context
	fallback *time.Timer
}

type waiterKey struct{}

// Watch returns a context that carries say: the first lock of this package taken with it
// that has waited [NoticeAfter] (since Watch) tells say, once, which directory it waits
// for and the process that holds it (0 when not known). When no lock of this package takes
// the context (a filesystem's own lock), say is told of dir, holder 0, at the same time.
// stop ends the watch: after it returns, say is not running and will not be called. With
// a nil say, Watch returns ctx itself.
func Watch(ctx context.Context, dir string, say func(dir string, holder int)) (watched context.Context, stop func()) {
	if say == nil {
		return ctx, func() {}
	}
	w := &waiter{say: say, at: time.Now().Add(NoticeAfter)}
	w.fallback = time.AfterFunc(NoticeAfter, func() {
		if !w.claimed.Load() {
			w.tell(dir, func() int { return 0 })
		}
	})
	return context.WithValue(ctx, waiterKey{}, w), w.stop
}

// waiterOf returns the watch ctx carries, or nil, and claims it.
func waiterOf(ctx context.Context) *waiter {
	w, _ := ctx.Value(waiterKey{}).(*waiter)
	if w != nil {
		w.claimed.Store(true)
	}
	return w
}

func (w *waiter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.over = true
	w.fallback.Stop()
}

// due reports whether the watcher is to be told now.
func (w *waiter) due() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.over && !time.Now().Before(w.at)
}

// timer returns a channel that fires when the watcher is to be told, nil when it is not,
// and the timer's stop.
func (w *waiter) timer() (<-chan time.Time, func()) {
	if w == nil {
		return nil, func() {}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return nil, func() {}
	}
	t := time.NewTimer(time.Until(w.at))
	return t.C, func() { t.Stop() }
}

// tell tells the watcher, unless it was told already or the watch has ended; holder is
// asked only then.
func (w *waiter) tell(dir string, holder func() int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return
	}
	w.over = true
	w.say(dir, holder())
}
