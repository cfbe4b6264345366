package wslock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// open opens a directory for one lock.
func open(t *testing.T, dir string) *os.File {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tree makes dir/p/sub, dir/p/a and dir/p/b and returns dir/p.
func tree(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "p")
	for _, sub := range []string{"sub", "a", "b"} {
		if err := os.MkdirAll(filepath.Join(p, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// lock takes Dir's lock of dir, failing the test if it cannot (waiting half a minute at
// most, so that a lock that should be free fails rather than hangs the test).
func lock(t *testing.T, dir string) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	release, err := Dir(ctx, open(t, dir))
	if err != nil {
		t.Fatalf("lock %s: %v", dir, err)
	}
	return release
}

// blocked tries Dir's lock of dir for a while and returns the wait's error, failing the
// test if the lock was had.
func blocked(t *testing.T, dir string) *WaitError {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	release, err := Dir(ctx, open(t, dir))
	if err == nil {
		release()
		t.Fatalf("lock %s was had while it should wait", dir)
	}
	var we *WaitError
	if !errors.As(err, &we) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock %s: %v, want a wait ended by the deadline", dir, err)
	}
	return we
}

// TestDirExcludesTwoHandles checks that two handles of one directory exclude each other,
// that a waiter gives up when its context ends, and that the lock is free again after.
func TestDirExcludesTwoHandles(t *testing.T) {
	dir := t.TempDir()
	release := lock(t, dir)
	if we := blocked(t, dir); we.Dir != dir || we.Holder != os.Getpid() {
		t.Errorf("wait error names %q held by %d, want %q held by this process", we.Dir, we.Holder, dir)
	}
	release()
	lock(t, dir)()
}

// TestNestedWorkspacesExclude: a lock of p keeps out one of p/sub, which waits for p, and
// the other way round.
func TestNestedWorkspacesExclude(t *testing.T) {
	p := tree(t)
	sub := filepath.Join(p, "sub")
	release := lock(t, p)
	if we := blocked(t, sub); we.Dir != p {
		t.Errorf("p/sub waits for %q, want p", we.Dir)
	}
	release()
	release = lock(t, sub)
	if we := blocked(t, p); we.Dir != p {
		t.Errorf("p waits for %q, want p itself", we.Dir)
	}
	release()
	lock(t, p)()
}

// TestSiblingsRunAtOnce: p/a and p/b are locked together, and p waits for both.
func TestSiblingsRunAtOnce(t *testing.T) {
	p := tree(t)
	ra := lock(t, filepath.Join(p, "a"))
	rb := lock(t, filepath.Join(p, "b"))
	blocked(t, p)
	ra()
	blocked(t, p)
	rb()
	lock(t, p)()
}

// TestSharedAndExclusive checks the in-process lock: shared holders admit each other and
// keep out an exclusive one; an exclusive holder keeps out both kinds; a waiting
// exclusive one keeps out new shared ones.
func TestSharedAndExclusive(t *testing.T) {
	ctx := context.Background()
	try := func(shared bool) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		defer cancel()
		release, err := acquire(ctx, "k", shared, "k", nil)
		if err == nil {
			release()
		}
		return err
	}
	r1, err1 := acquire(ctx, "k", true, "k", nil)
	r2, err2 := acquire(ctx, "k", true, "k", nil)
	if err1 != nil || err2 != nil {
		t.Fatalf("two shared locks: %v, %v", err1, err2)
	}
	if try(false) == nil {
		t.Fatal("an exclusive lock was had beside shared ones")
	}
	waiting := make(chan error)
	go func() {
		release, err := acquire(ctx, "k", false, "k", nil)
		if err == nil {
			release()
		}
		waiting <- err
	}()
	for !writerWaits("k") {
		time.Sleep(time.Millisecond)
	}
	if try(true) == nil {
		t.Error("a new shared lock was had while an exclusive one waited")
	}
	r1()
	r2()
	if err := <-waiting; err != nil {
		t.Fatalf("the waiting exclusive lock: %v", err)
	}
	rx, err := acquire(ctx, "k", false, "k", nil)
	if err != nil {
		t.Fatal(err)
	}
	if try(true) == nil || try(false) == nil {
		t.Error("a lock was had beside an exclusive one")
	}
	rx()
	if n := entryCount(); n != 0 {
		t.Errorf("%d in-process entries left after every release", n)
	}
}

// writerWaits reports whether an exclusive lock of key is waited for.
func writerWaits(key any) bool {
	entries.Lock()
	defer entries.Unlock()
	e := entries.m[key]
	return e != nil && e.writers > 0
}

func entryCount() int {
	entries.Lock()
	defer entries.Unlock()
	return len(entries.m)
}

// TestCancelInProcessWait cancels a wait for a lock held in this process: the wait ends
// with the context's error, the entry is left clean, and the lock is had after release.
func TestCancelInProcessWait(t *testing.T) {
	dir := t.TempDir()
	release := lock(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		r, err := Dir(ctx, open(t, dir))
		if err == nil {
			r()
		}
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}
	release()
	if n := entryCount(); n != 0 {
		t.Errorf("%d in-process entries left", n)
	}
	lock(t, dir)()
}

// TestWatchTellsOnce: a wait in this process tells the watch once, with the directory
// and this process as the holder, however long it goes on.
func TestWatchTellsOnce(t *testing.T) {
	shortNotice(t)
	dir := t.TempDir()
	release := lock(t, dir)
	defer release()
	told, first := make(chan [2]any, 10), make(chan [2]any, 1)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, stop := Watch(ctx, "unused", func(dir string, holder int) { told <- [2]any{dir, holder} })
	defer stop()
	go func() {
		first <- <-told // then wait on a while before giving up
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	if _, err := Dir(ctx, open(t, dir)); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: %v", err)
	}
	stop()
	if got := <-first; got != [2]any{dir, os.Getpid()} {
		t.Errorf("told %v, want %s held by this process", got, dir)
	}
	if len(told) != 0 {
		t.Errorf("%d more notices, want none", len(told))
	}
}

// TestWatchWithoutLock: when no lock of this package takes the context, the watch tells
// the directory it was given, holder unknown; and nothing after stop.
func TestWatchWithoutLock(t *testing.T) {
	shortNotice(t)
	told := make(chan [2]any, 1)
	_, stop := Watch(context.Background(), "ws", func(dir string, holder int) { told <- [2]any{dir, holder} })
	if got := <-told; got != [2]any{"ws", 0} {
		t.Errorf("told %v, want ws and no holder", got)
	}
	stop()
	_, stop = Watch(context.Background(), "ws", func(string, int) { told <- [2]any{} })
	stop()
	time.Sleep(5 * NoticeAfter)
	if len(told) != 0 {
		t.Error("told after stop")
	}
}

// shortNotice makes the notice come early for one test.
func shortNotice(t *testing.T) {
	old := NoticeAfter
	NoticeAfter = 10 * time.Millisecond
	t.Cleanup(func() { NoticeAfter = old })
}

// TestDirsHoldEveryChainInOneOrder: a commit in p/a that also writes in p/b holds both:
// p/b's own commit waits for it. Two callers asking for a and b in opposite orders take
// them in one order, so neither deadlocks.
func TestDirsHoldEveryChainInOneOrder(t *testing.T) {
	p := tree(t)
	a, b := filepath.Join(p, "a"), filepath.Join(p, "b")
	release, err := Dirs(context.Background(), []*os.File{open(t, a), open(t, b)})
	if err != nil {
		t.Fatal(err)
	}
	if we := blocked(t, b); we.Dir != b {
		t.Errorf("p/b waits for %q, want p/b", we.Dir)
	}
	blocked(t, p)
	release()
	lock(t, b)()

	done := make(chan struct{})
	for _, order := range [][]string{{a, b}, {b, a}} {
		go func() {
			for range 200 {
				r, err := Dirs(context.Background(), []*os.File{open(t, order[0]), open(t, order[1])})
				if err != nil {
					t.Error(err)
					break
				}
				r()
			}
			done <- struct{}{}
		}()
	}
	for range 2 {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("two callers taking a and b in opposite orders deadlocked")
		}
	}
}
