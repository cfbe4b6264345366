package main

import (
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// stallFs stalls the first file created once it is armed, which is in the middle of a
// commit, until release is closed; entered is closed when it stalls.
type stallFs struct {
	afero.Fs
	armed   atomic.Bool
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

// newStallFs returns an unarmed stallFs on a MemMapFs.
func newStallFs() *stallFs {
	return &stallFs{Fs: afero.NewMemMapFs(), entered: make(chan struct{}), release: make(chan struct{})}
}

// OpenFile stalls the first creation of a file once armed.
func (f *stallFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	if flag&os.O_CREATE != 0 && f.armed.Load() {
		f.once.Do(func() {
			close(f.entered)
			<-f.release
		})
	}
	return f.Fs.OpenFile(name, flag, perm)
}

// callLine is the tools/call of apply_patch with patch, as one line.
func callLine(id int, patch string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "apply_patch", "arguments": map[string]any{"patchText": patch}}})
	return string(b)
}

// startStalled starts a call that stalls in its commit, and returns once it has.
func startStalled(t *testing.T, onHalt func(*stallFs)) (*rawClient, *stallFs) {
	t.Helper()
	fsys := newStallFs()
	c := startRaw(t, Config{FS: fsys, Mode: applypatch.ModeEdits}, maxFrame, func() {
		if onHalt != nil {
			onHalt(fsys)
		}
	})
	c.initialize("2025-06-18")
	fsys.armed.Store(true)
	c.send(callLine(2, update))
	select {
	case <-fsys.entered:
	case <-time.After(answerWait):
		t.Fatal("the call did not reach its commit")
	}
	return c, fsys
}

// signal sends the first signal and waits until the guard refuses new calls.
func (c *rawClient) signal() {
	c.t.Helper()
	c.sigs <- syscall.SIGTERM
	for deadline := time.Now().Add(answerWait); ; time.Sleep(time.Millisecond) {
		c.g.mu.Lock()
		draining := c.g.draining
		c.g.mu.Unlock()
		if draining {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatal("the signal did not stop the server accepting calls")
		}
	}
}

// callText returns the text of a tools/call answer with id, and whether it is an error.
func callText(t *testing.T, m rawMsg, id string) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	if string(m["id"]) != id || json.Unmarshal(m["result"], &res) != nil || len(res.Content) != 1 {
		t.Fatalf("answer %.300s, want the result of call %s", m, id)
	}
	return res.Content[0].Text, res.IsError
}

// TestShutdownAnswersCallInFlight checks that a signal during a commit lets the commit
// finish and its call be answered, refuses new calls meanwhile, and then ends serve (X17).
func TestShutdownAnswersCallInFlight(t *testing.T) {
	c, fsys := startStalled(t, nil)
	c.signal()
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := c.next(); m.code() != codeShuttingDown || string(m["id"]) != "3" {
		t.Errorf("a call after the signal: %s, want a shutting-down error", m)
	}
	close(fsys.release)
	if text, _ := callText(t, c.next(), "2"); text != "Applied patch: 1 change\nApplied: main.go hunk 1" {
		t.Errorf("the call in flight answered %q", text)
	}
	if err := c.wait(); err != nil {
		t.Errorf("serve = %v, want nil", err)
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != newMain {
		t.Errorf("main.go = %q", got)
	}
}

// TestShutdownIdle checks that a signal with no call in flight ends serve at once.
func TestShutdownIdle(t *testing.T) {
	c := startRaw(t, Config{Mode: applypatch.ModeEdits}, maxFrame, nil)
	c.initialize("2025-06-18")
	c.signal()
	if err := c.wait(); err != nil {
		t.Errorf("serve = %v, want nil", err)
	}
}

// TestShutdownHaltsLongCall checks that a call still running after drainTimeout is
// cancelled and still answered, with the workspace whole: the commit rolled back, or
// completed when cancelled too late, and the answer says which.
func TestShutdownHaltsLongCall(t *testing.T) {
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = 50 * time.Millisecond
	// The stalled commit goes on only once the server cancels it.
	c, fsys := startStalled(t, func(f *stallFs) { close(f.release) })
	c.signal()
	t.Logf("the cancelled call answered %q", answeredWhole(t, c, fsys))
}

// answeredWhole checks that the stalled call is answered, that serve then ends, and that
// main.go is whole and as the answer says: rolled back with an error, or applied. It
// returns the answer.
func answeredWhole(t *testing.T, c *rawClient, fsys *stallFs) string {
	t.Helper()
	text, isError := callText(t, c.next(), "2")
	if err := c.wait(); err != nil {
		t.Errorf("serve = %v, want nil", err)
	}
	want := map[bool]string{false: newMain, true: baseMain}[isError]
	if got := readFile(t, fsys, "/ws/main.go"); got != want {
		t.Errorf("answer %q (isError %v) but main.go = %q", text, isError, got)
	}
	return text
}

// TestShutdownSecondSignalCancelsAndWaits checks that a second signal cancels the call
// in flight and waits for it: its commit rolls back or completes, and it is answered
// with what it did (X17, S2); serve does not return with the commit half-written.
func TestShutdownSecondSignalCancelsAndWaits(t *testing.T) {
	c, fsys := startStalled(t, func(f *stallFs) { close(f.release) }) // going on only once cancelled
	c.signal()
	c.sigs <- syscall.SIGINT
	answeredWhole(t, c, fsys)
}

// TestShutdownThirdSignal checks that a third signal ends serve at once, the call in
// flight notwithstanding: the way out of a call that does not end.
func TestShutdownThirdSignal(t *testing.T) {
	c, fsys := startStalled(t, nil)
	defer close(fsys.release)
	c.signal()
	c.sigs <- syscall.SIGINT
	c.sigs <- syscall.SIGINT
	if err := c.wait(); err != errThirdSignal {
		t.Errorf("serve = %v, want %v", err, errThirdSignal)
	}
}

// TestCallReusingAnIDInFlight checks that a call whose id is that of a call still in
// flight is answered with an error at once, rather than dropped, which left a client
// waiting for its answer forever (X17); the call in flight is answered as usual.
func TestCallReusingAnIDInFlight(t *testing.T) {
	c, fsys := startStalled(t, nil)
	c.send(callLine(2, update))
	if m := c.next(); m.code() != codeInvalidRequest || string(m["id"]) != "2" {
		t.Errorf("a call reusing id 2: %s, want an invalid-request error for id 2", m)
	}
	close(fsys.release)
	if text, _ := callText(t, c.next(), "2"); text != "Applied patch: 1 change\nApplied: main.go hunk 1" {
		t.Errorf("the call in flight answered %q", text)
	}
}
