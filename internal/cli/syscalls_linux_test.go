//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fileCalls are the system calls that work on files and directories; the Go runtime's
// own (nanosleep, futex, signals, memory) follow the wall time, not the files.
var fileCalls = map[string]bool{
	"openat": true, "open": true, "close": true, "read": true, "pread64": true, "write": true,
	"pwrite64": true, "lseek": true, "newfstatat": true, "fstat": true, "statx": true,
	"lstat": true, "stat": true, "fcntl": true, "linkat": true, "renameat": true,
	"renameat2": true, "unlinkat": true, "fchmod": true, "fchmodat": true, "fchown": true,
	"fchownat": true, "fsync": true, "fdatasync": true, "mkdirat": true, "getdents64": true,
	"readlinkat": true, "flock": true, "ioctl": true, "fstatfs": true,
}

// maxCallsPerFile is the most system calls on files one more updated file may cost the
// command (PERF1): reading it (open, fstat, read, close), the fence's looks at its path
// when it is resolved and just before its write, the journal's hard link to it and a
// look at it after, the temporary file (create, write, close) renamed over it, and the
// link's removal at the end.
const maxCallsPerFile = 15

// TestSystemCallsPerUpdatedFile runs the command under strace on payloads of one-hunk
// updates of 100 and of 400 files and bounds what the 300 more cost, which leaves out
// the process's fixed costs. It is skipped where strace is missing or cannot trace.
func TestSystemCallsPerUpdatedFile(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed")
	}
	small := fileCallsFor(t, strace, 100)
	large := fileCallsFor(t, strace, 400)
	per := float64(large-small) / 300
	msg := fmt.Sprintf("an updated file costs %.2f system calls on files (%d for 100 files, %d for 400)", per, small, large)
	if per > maxCallsPerFile {
		t.Fatalf("%s; want at most %d", msg, maxCallsPerFile)
	}
	t.Log(msg)
}

// fileCallsFor applies a payload updating n files in directories of 100 under strace
// and returns the system calls on files it made.
func fileCallsFor(t *testing.T, strace string, n int) int {
	t.Helper()
	dir := t.TempDir()
	var p strings.Builder
	p.WriteString("*** Begin Patch\n")
	for i := range n {
		name := fmt.Sprintf("pkg%d/file%d.go", i/100, i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for j := range 50 {
			fmt.Fprintf(&b, "line %d of file %d\n", j, i)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&p, "*** Update File: %s\n@@\n line 9 of file %d\n-line 10 of file %d\n+line ten of file %d\n line 11 of file %d\n", name, i, i, i, i)
	}
	p.WriteString("*** End Patch\n")
	out := filepath.Join(t.TempDir(), "strace.txt")
	cmd := command(t, nil)
	cmd.Args = append([]string{strace, "-f", "-c", "-o", out, "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = strace
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(p.String())
	if res, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(res, []byte("PTRACE")) || bytes.Contains(res, []byte("ptrace")) {
			t.Skipf("strace cannot trace here: %s", res)
		}
		t.Fatalf("applypatch under strace: %v\n%s", err, res)
	}
	summary, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return countFileCalls(t, summary)
}

// countFileCalls adds up the calls column of strace -c's summary for the calls on files.
func countFileCalls(t *testing.T, summary []byte) int {
	t.Helper()
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(summary))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || !fileCalls[f[len(f)-1]] {
			continue
		}
		calls, err := strconv.Atoi(f[3])
		if err != nil {
			t.Fatalf("unexpected strace summary line %q", sc.Text())
		}
		total += calls
	}
	if total == 0 {
		t.Fatalf("no system calls on files in the summary:\n%s", summary)
	}
	return total
}
