//go:build unix

package wslock

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/applypatch/applypatch/internal/statetest"
)

// holdEnv makes the test binary hold Dir's lock of the directory it names, instead of
// running the tests, until its standard input ends: another process for the tests below.
const holdEnv = "WSLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		os.Exit(hold(dir))
	}
	os.Exit(m.Run())
}

func hold(dir string) int { return statetest.Hold(dir, Dir) }

// holdElsewhere has another process hold the lock of dir until the test ends, and
// returns its id.
func holdElsewhere(t *testing.T, dir string) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	return statetest.StartHolder(t, cmd)
}

// TestOtherProcessExcludes: a lock held in another process keeps this one out, names the
// holder where the platform lists its locks, and the wait ends with the context.
func TestOtherProcessExcludes(t *testing.T) {
	p := tree(t)
	pid := holdElsewhere(t, p)
	we := blocked(t, filepath.Join(p, "sub"))
	if we.Dir != p {
		t.Errorf("p/sub waits for %q, want p", we.Dir)
	}
	if want := expectHolder(pid); we.Holder != want {
		t.Errorf("holder %d, want %d", we.Holder, want)
	}
	if _, err := os.Stat(filepath.Join(p, "sub")); err != nil {
		t.Fatal(err)
	}
}

// TestOtherProcessNestedInside: a lock of p/sub held in another process keeps out p,
// which it holds shared, and not a sibling.
func TestOtherProcessNestedInside(t *testing.T) {
	p := tree(t)
	pid := holdElsewhere(t, filepath.Join(p, "sub"))
	lock(t, filepath.Join(p, "a"))()
	if we := blocked(t, p); we.Dir != p || we.Holder != expectHolder(pid) {
		t.Errorf("p waits for %q held by %d, want p held by %d", we.Dir, we.Holder, expectHolder(pid))
	}
}

// TestCancelKernelWait cancels a wait for a lock another process holds; the in-process
// locks it had are released.
func TestCancelKernelWait(t *testing.T) {
	p := tree(t)
	holdElsewhere(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		r, err := Dir(ctx, open(t, p))
		if err == nil {
			r()
		}
		done <- err
	}()
	for entryCount() == 0 { // the wait has reached the kernel's lock, in-process ones taken
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v, want context.Canceled", err)
	}
	if n := entryCount(); n != 0 {
		t.Errorf("%d in-process entries left", n)
	}
}

// TestWatchNamesOtherProcess: waiting for a lock another process holds tells the watch
// once, with the directory and, on Linux, the holder's process id.
func TestWatchNamesOtherProcess(t *testing.T) {
	shortNotice(t)
	p := tree(t)
	pid := holdElsewhere(t, p)
	told := make(chan [2]any, 10)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, stop := Watch(ctx, "unused", func(dir string, holder int) {
		told <- [2]any{dir, holder}
		time.AfterFunc(100*time.Millisecond, cancel) // wait on a while: no second notice
	})
	defer stop()
	_, err := Dir(ctx, open(t, filepath.Join(p, "sub")))
	var we *WaitError
	if !errors.As(err, &we) || !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: %v", err)
	}
	stop()
	close(told)
	var got [][2]any
	for n := range told {
		got = append(got, n)
	}
	if want := [2]any{p, expectHolder(pid)}; len(got) != 1 || got[0] != want {
		t.Fatalf("notices %v, want one: %v", got, want)
	}
}
