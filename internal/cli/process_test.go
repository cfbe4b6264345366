package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/statetest"
)

// childEnv makes the test binary run the command instead of the tests: the process
// tests below start it as a real applypatch process, to kill it or race two of them.
const childEnv = "APPLYPATCH_CLI_TEST_CHILD"

func TestMain(m *testing.M) {
	done := statetest.Isolate()
	if dir := os.Getenv(holdEnv); dir != "" {
		os.Exit(holdLock(dir))
	}
	if os.Getenv(childEnv) == "1" {
		os.Exit(Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	done()
	os.Exit(code)
}

// command is the applypatch command as a child process of the test.
func command(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	return cmd
}

// crashTree writes the tree of the kill tests: 200 files in 10 directories, and returns
// a payload that updates 80 of them, deletes 40, moves 40 into new directories and adds
// 40 more in new directories.
func crashTree(t *testing.T, dir string) string {
	t.Helper()
	var p strings.Builder
	p.WriteString("*** Begin Patch\n")
	for i := range 200 {
		name := fmt.Sprintf("d%d/f%03d.txt", i%10, i)
		if i < 160 {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			var b strings.Builder
			for j := range 20 {
				fmt.Fprintf(&b, "file %d line %d\n", i, j)
			}
			os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
		}
		switch {
		case i < 80:
			fmt.Fprintf(&p, "*** Update File: %s\n@@\n file %d line 9\n-file %d line 10\n+file %d line 10 CHANGED\n", name, i, i, i)
		case i < 120:
			fmt.Fprintf(&p, "*** Delete File: %s\n", name)
		case i < 160:
			fmt.Fprintf(&p, "*** Update File: %s\n*** Move to: moved/m%d/f%03d.txt\n@@\n-file %d line 0\n+file %d line 0 MOVED\n", name, i%5, i, i, i)
		default:
			fmt.Fprintf(&p, "*** Add File: new/n%d/f%03d.txt\n+added %d\n", i%7, i, i)
		}
	}
	p.WriteString("*** End Patch\n")
	payload := filepath.Join(filepath.Dir(dir), "payload.txt")
	os.WriteFile(payload, []byte(p.String()), 0o644)
	return payload
}

// snapshot reads a tree as path → content, directories included.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(name string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, name)
		if fi.IsDir() {
			out[rel] = "dir"
			return nil
		}
		b, _ := os.ReadFile(name)
		out[rel] = fmt.Sprintf("%v %s", fi.Mode(), b)
		return nil
	})
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// slowEnvFor slows each rename and removal of the commit by ms milliseconds, so that a
// signal lands midway (test only, see slowEnv).
func slowEnvFor(ms int) []string { return []string{fmt.Sprintf("%s=%d", slowEnv, ms)} }

// TestKilledCommitRecovers kills a real applypatch process with SIGKILL at 30 random
// moments of a 200-file commit, then runs applypatch --recover: every run ends with the
// tree at its baseline or at the commit's result, nothing left behind (X11).
func TestKilledCommitRecovers(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	payload := crashTree(t, base)
	baseline := snapshot(t, base)
	final := filepath.Join(t.TempDir(), "final")
	copyTree(t, base, final)
	if out, err := command(t, nil, "-C", final, payload).CombinedOutput(); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out)
	}
	result := snapshot(t, final)
	counts := map[string]int{}
	for i := range 30 {
		ws := filepath.Join(t.TempDir(), "ws")
		copyTree(t, base, ws)
		cmd := command(t, slowEnvFor(1), "-C", ws, payload)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(900)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		var stdout, stderr bytes.Buffer
		rec := command(t, nil, "-C", ws, "--recover")
		rec.Stdout, rec.Stderr = &stdout, &stderr
		if err := rec.Run(); err != nil {
			t.Fatalf("kill %d: --recover: %v\n%s%s", i, err, stdout.String(), stderr.String())
		}
		got := snapshot(t, ws)
		switch {
		case sameTree(got, baseline):
			counts["baseline"]++
		case sameTree(got, result):
			counts["final"]++
		default:
			t.Fatalf("kill %d: after recovery (%s) the tree is neither baseline nor result", i, stdout.String())
		}
		if strings.HasPrefix(stdout.String(), "recovered") {
			counts["recovered"]++
		}
	}
	t.Logf("30 kills: %v", counts)
}

// TestTerminatedCommitRollsBack sends SIGTERM, SIGINT and SIGHUP (a closed terminal) to
// a real applypatch process midway through a slowed commit, at 10 moments: it rolls back
// and exits 1 with the usual result text on stdout, the tree at its baseline with nothing
// left behind (X11, H5).
func TestTerminatedCommitRollsBack(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	payload := crashTree(t, base)
	baseline := snapshot(t, base)
	for i := range 10 {
		ws := filepath.Join(t.TempDir(), "ws")
		copyTree(t, base, ws)
		var stdout, stderr bytes.Buffer
		cmd := command(t, slowEnvFor(2), "-C", ws, payload)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The signal must find the handler installed, which a process on a loaded machine
		// may not have done 100 ms after it started: wait for the commit's journal.
		waitForJournal(t, ws)
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		sig := []os.Signal{syscall.SIGTERM, os.Interrupt, syscall.SIGHUP}[i%3]
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != exitRejected {
			t.Fatalf("signal %d (%v): exit %d (%v), want %d\n%s", i, sig, code, err, exitRejected, stderr.String())
		}
		if !strings.Contains(stdout.String(), "nothing was applied") {
			t.Errorf("signal %d: stdout %q does not say nothing was applied (stderr %q)", i, stdout.String(), stderr.String())
		}
		if got := snapshot(t, ws); !sameTree(got, baseline) {
			t.Fatalf("signal %d: the tree is not the baseline after the rollback", i)
		}
	}
}

// waitForJournal waits until the commit running in ws has made its journal.
func waitForJournal(t *testing.T, ws string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		names, _ := os.ReadDir(ws)
		for _, n := range names {
			if strings.HasPrefix(n.Name(), fence.JournalPrefix) {
				return
			}
		}
	}
	t.Fatal("the commit made no journal within 30 s")
}

// TestConcurrentProcessesBothLand runs two applypatch processes at once, 100 rounds,
// with non-overlapping hunks on the same 5 files: both succeed and both changes are on
// disk (X10).
func TestConcurrentProcessesBothLand(t *testing.T) {
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a.patch"), filepath.Join(dir, "b.patch")
	os.WriteFile(pa, []byte(fivePatch("A", 3)), 0o644)
	os.WriteFile(pb, []byte(fivePatch("B", 17)), 0o644)
	for round := range 100 {
		ws := filepath.Join(dir, fmt.Sprintf("ws%d", round))
		os.Mkdir(ws, 0o755)
		for i := range 5 {
			os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)), []byte(twentyLines()), 0o644)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		outs := make([][]byte, 2)
		for j, p := range []string{pa, pb} {
			wg.Go(func() { outs[j], errs[j] = command(t, nil, "-C", ws, p).CombinedOutput() })
		}
		wg.Wait()
		for j := range 2 {
			if errs[j] != nil {
				t.Fatalf("round %d: process %d: %v\n%s", round, j, errs[j], outs[j])
			}
		}
		for i := range 5 {
			b, _ := os.ReadFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)))
			if !strings.Contains(string(b), "line 3 A") || !strings.Contains(string(b), "line 17 B") {
				t.Fatalf("round %d: f%d.txt lost a change:\n%s", round, i, b)
			}
		}
	}
}

func twentyLines() string {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// fivePatch changes line n of f0..f4 to "line n TAG".
func fivePatch(tag string, n int) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range 5 {
		fmt.Fprintf(&b, "*** Update File: f%d.txt\n@@\n line %d\n-line %d\n+line %d %s\n", i, n-1, n, n, tag)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// copyTree copies a directory tree.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
