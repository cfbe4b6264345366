package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/tui/tui"
)

const payload = `*** Begin Patch
*** Update File: greet.go
@@ func hello
-	return "hello"
+	return "hello, world"
*** Add File: docs/notes.md
+# Notes
*** End Patch
`

const greet = "package greet\n\nfunc hello() string {\n\treturn \"hello\"\n}\n"

// lockedBuffer is a terminal's screen, written by the program while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// workspace writes greet.go and the payload file into a new directory.
func workspace(t *testing.T) (dir, payloadFile string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(greet), 0o644); err != nil {
		t.Fatal(err)
	}
	payloadFile = filepath.Join(t.TempDir(), "patch.txt")
	if err := os.WriteFile(payloadFile, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, payloadFile
}

// fakeTerminal returns a reviewer that reads keys from a pipe the keys are already
// written to, and draws into a buffer.
func fakeTerminal(t *testing.T, keys string) tui.Reviewer {
	t.Helper()
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close(); in.Close() })
	if _, err := w.WriteString(keys); err != nil {
		t.Fatal(err)
	}
	return tui.Reviewer{Input: in, Output: &lockedBuffer{},
		ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(100, 30), tea.WithoutSignalHandler()}}
}

// runCommand runs the command with the keys typed into its terminal.
func runCommand(t *testing.T, keys string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, fakeTerminal(t, keys), args...)
}

// runWith runs the command with the reviewer rv.
func runWith(t *testing.T, rv applypatch.Reviewer, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errOut, rv)
	return code, out.String(), errOut.String()
}

// H5, R10: C-c C-c applies the reviewed patch; the result is printed and the exit code
// is 0.
func TestCommandApplies(t *testing.T) {
	dir, file := workspace(t)
	code, stdout, stderr := runCommand(t, "\x03\x03", "-C", dir, file)
	if code != exitApplied {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	if want := "Applied patch: 2 changes\nApplied: greet.go hunk 1\nApplied: docs/notes.md\n"; stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "docs", "notes.md")); string(b) != "# Notes\n" {
		t.Errorf("docs/notes.md = %q", b)
	}
}

// H5, S4: C-c C-k rejects; nothing is written and the exit code is 1.
func TestCommandRejects(t *testing.T) {
	dir, file := workspace(t)
	code, stdout, _ := runCommand(t, "\x03\x0b", "-C", dir, file)
	if code != exitRejected || stdout != "Error: Patch rejected\n" {
		t.Errorf("exit %d, stdout %q; want 1 and the rejection", code, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.go")); string(b) != greet {
		t.Error("a rejected patch changed greet.go")
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); !os.IsNotExist(err) {
		t.Error("a rejected patch created docs/")
	}
}

// H5: a payload that does not resolve is refused before any review: exit 1, nothing
// written; bad usage exits 2.
func TestCommandRefusesAndUsage(t *testing.T) {
	dir, _ := workspace(t)
	bad := "*** Begin Patch\n*** Update File: greet.go\n@@\n-absent line\n+x\n*** End Patch\n"
	code, stdout, _ := runCommand(t, "", "-C", dir, bad)
	if code != exitRejected || !strings.HasPrefix(stdout, "Error: ") {
		t.Errorf("exit %d, stdout %q; want 1 and an error result", code, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.go")); string(b) != greet {
		t.Error("a refused patch changed greet.go")
	}
	for _, args := range [][]string{
		{"-C", filepath.Join(dir, "missing"), payload},
		{"-C", dir, "a", "b"},
		{"--no-such-flag"},
	} {
		if code, _, _ := runCommand(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
