package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/applypatch/applypatch/internal/statetest"
	"github.com/applypatch/applypatch/internal/wslock"
)

// holdEnv makes the test binary hold the workspace lock of the directory it names, as a
// commit there would, until its standard input ends: another process for the tests below.
const holdEnv = "APPLYPATCH_CLI_TEST_HOLD"

func holdLock(dir string) int { return statetest.Hold(dir, wslock.Dir) }

// holdElsewhere has another process hold the workspace lock of dir until the test ends,
// and returns its id.
func holdElsewhere(t *testing.T, dir string) int {
	t.Helper()
	cmd := command(t, []string{holdEnv + "=" + dir})
	return statetest.StartHolder(t, cmd)
}

// insertAfterHead is a payload that inserts line after the line HEAD of name.
func insertAfterHead(name, line string) string {
	return fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n HEAD\n+%s\n*** End Patch\n", name, line)
}

// TestNestedWorkspacesLoseNothing runs two loops of applypatch processes at once, one
// with -C p and one with -C p/sub, each inserting lines into p/sub/f.txt: every insert
// reported applied is in the file at the end, since the two workspaces' locks exclude
// each other (X16).
func TestNestedWorkspacesLoseNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p")
	os.MkdirAll(filepath.Join(p, "sub"), 0o755)
	file := filepath.Join(p, "sub", "f.txt")
	os.WriteFile(file, []byte("HEAD\nTAIL\n"), 0o644)
	const n = 30
	var mu sync.Mutex
	var applied []string
	var wg sync.WaitGroup
	for _, loop := range []struct{ dir, name, tag string }{{p, "sub/f.txt", "outer"}, {filepath.Join(p, "sub"), "f.txt", "inner"}} {
		wg.Go(func() {
			for i := range n {
				line := fmt.Sprintf("%s %d", loop.tag, i)
				if command(t, slowEnvFor(1), "-C", loop.dir, insertAfterHead(loop.name, line)).Run() == nil {
					mu.Lock()
					applied = append(applied, line)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	b, _ := os.ReadFile(file)
	lines := strings.Split(string(b), "\n")
	var lost []string
	for _, a := range applied {
		if !contains(lines, a) {
			lost = append(lost, a)
		}
	}
	if len(applied) == 0 || len(lost) > 0 {
		t.Fatalf("%d of %d inserts reported applied; lost after that: %v\n%s", len(applied), 2*n, lost, b)
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// lockedWorkspace makes p/sub/f.txt, has another process hold the lock of p, and returns
// p, the file, its content and the holder's id.
func lockedWorkspace(t *testing.T) (p, file, content string, holder int) {
	p = filepath.Join(t.TempDir(), "p")
	os.MkdirAll(filepath.Join(p, "sub"), 0o755)
	file, content = filepath.Join(p, "sub", "f.txt"), "HEAD\nTAIL\n"
	os.WriteFile(file, []byte(content), 0o644)
	return p, file, content, holdElsewhere(t, p)
}

// holderShown is how stderr names the holder of a lock: by its id where the kernel lists
// its locks.
func holderShown(pid int) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	return fmt.Sprintf("held by process %d", pid)
}

// TestLockTimeoutGivesUp: while another process holds the lock of p, a run in p/sub with
// --lock-timeout 300ms gives up: exit 1, stderr names the wait, the holder and the
// timeout, stdout says nothing was written, and the file is untouched (X16).
func TestLockTimeoutGivesUp(t *testing.T) {
	p, file, content, holder := lockedWorkspace(t)
	var stdout, stderr bytes.Buffer
	cmd := command(t, nil, "-C", filepath.Join(p, "sub"), "--lock-timeout", "300ms", insertAfterHead("f.txt", "new"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitRejected {
		t.Errorf("exit %d, want %d", code, exitRejected)
	}
	for _, want := range []string{"gave up waiting for the lock of " + p, holderShown(holder), "--lock-timeout 300ms"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not say %q", stderr.String(), want)
		}
	}
	if !strings.Contains(stdout.String(), "nothing was written") || !strings.Contains(stdout.String(), "another commit holds the workspace") {
		t.Errorf("stdout %q does not say another commit holds the workspace and nothing was written", stdout.String())
	}
	if b, _ := os.ReadFile(file); string(b) != content {
		t.Errorf("the file changed: %q", b)
	}
}

// TestSignalWhileWaiting sends SIGTERM, then SIGINT, to a run that waits for the lock
// another process holds, once it says it waits: it exits 1 saying it was interrupted,
// the file untouched (X16).
func TestSignalWhileWaiting(t *testing.T) {
	p, file, content, holder := lockedWorkspace(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		var stdout bytes.Buffer
		cmd := command(t, nil, "-C", filepath.Join(p, "sub"), "--lock-timeout", "0", insertAfterHead("f.txt", "new"))
		cmd.Stdout = &stdout
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		said := readUntil(t, stderr, "waiting for another commit to finish")
		if !strings.Contains(said, "the lock of "+p) || !strings.Contains(said, holderShown(holder)) {
			t.Errorf("%v: the notice %q does not name the lock of p and its holder", sig, said)
		}
		cmd.Process.Signal(sig)
		var rest []byte
		waitBounded(t, cmd, func() { rest, _ = io.ReadAll(stderr) })
		if code := cmd.ProcessState.ExitCode(); code != exitRejected {
			t.Errorf("%v: exit %d, want %d", sig, code, exitRejected)
		}
		if !strings.Contains(string(rest), "interrupted while waiting for the lock of "+p) ||
			!strings.Contains(stdout.String(), "nothing was written") {
			t.Errorf("%v: stderr %q, stdout %q: not told it was interrupted with nothing written", sig, rest, stdout.String())
		}
		if b, _ := os.ReadFile(file); string(b) != content {
			t.Fatalf("%v: the file changed: %q", sig, b)
		}
	}
}

// readUntil reads lines from r until one contains want, and returns it; the test fails
// if r ends first.
func readUntil(t *testing.T, r io.Reader, want string) string {
	t.Helper()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if strings.Contains(line, want) {
			return line
		}
		if err != nil {
			t.Fatalf("stderr ended without %q", want)
		}
	}
}

// waitBounded reads the rest of cmd's output (read), then waits for cmd, killing it and
// failing the test if it is still running after a minute: a run that ignores the signal
// would otherwise wait for ever.
func waitBounded(t *testing.T, cmd *exec.Cmd, read func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		read()
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatal("the run did not end within a minute of the signal")
	}
}
