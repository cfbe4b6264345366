package wslock

import (
	"context"
	"os"
	"sync"
)

// entries are the in-process locks, by key. An entry lives only while a commit holds or
// waits for it.
var entries = struct {
	sync.Mutex
	m map[any]*entry
}{m: map[any]*entry{}}

// entry is one key's shared/exclusive lock. A waiting exclusive holder keeps new shared
// ones out, so that a stream of commits in sibling workspaces cannot starve a commit in
// the directory above them.
type entry struct {
	readers int           // shared holders
	writer  bool          // an exclusive holder
	writers int           // exclusive waiters
	refs    int           // holders and waiters
	changed chan struct{} // closed, and replaced, whenever a holder or waiter leaves
}

// acquire takes key's lock, shared or exclusive, waiting until the holders admit it or
// ctx is done, and returns its release.
func acquire(ctx context.Context, key any, shared bool, name string, w *waiter) (release func(), err error) {
	e := join(key, shared)
	for {
		entries.Lock()
		if e.admit(shared) {
			entries.Unlock()
			return func() { leave(key, e, shared, true) }, nil
		}
		changed := e.changed
		entries.Unlock()
		due, stop := w.timer()
		select {
		case <-changed:
		case <-due:
			w.tell(name, os.Getpid)
		case <-ctx.Done():
			stop()
			leave(key, e, shared, false)
			return nil, waitError(ctx, name, os.Getpid())
		}
		stop()
	}
}

// join finds or makes key's entry and counts the caller in, an exclusive one as waiting.
func join(key any, shared bool) *entry {
	entries.Lock()
	defer entries.Unlock()
	e := entries.m[key]
	if e == nil {
		e = &entry{changed: make(chan struct{})}
		entries.m[key] = e
	}
	e.refs++
	if !shared {
		e.writers++
	}
	return e
}

// admit takes the lock for a caller when the holders allow it, with entries locked.
func (e *entry) admit(shared bool) bool {
	switch {
	case e.writer:
		return false
	case shared && e.writers == 0:
		e.readers++
		return true
	case !shared && e.readers == 0:
		e.writer, e.writers = true, e.writers-1
		return true
	}
	return false
}

// leave releases the lock (held) or gives up the wait for it, and wakes the waiters.
func leave(key any, e *entry, shared, held bool) {
	entries.Lock()
	defer entries.Unlock()
	switch {
	case held && shared:
		e.readers--
	case held:
		e.writer = false
	case !shared:
		e.writers--
	}
	close(e.changed)
	e.changed = make(chan struct{})
	if e.refs--; e.refs == 0 {
		delete(entries.m, key)
	}
}
