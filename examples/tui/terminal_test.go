package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/examples/tui/tui"
)

// H5: with standard output redirected (tui --json > result.json) the review is drawn on
// the controlling terminal, never into the result; without one it is refused with a
// message that says why, and nothing is written.
func TestRedirectedOutputDrawsOnTheTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	tty, err := os.Create(filepath.Join(t.TempDir(), "tty"))
	if err != nil {
		t.Fatal(err)
	}
	rv, done := terminalReviewer(r, w, func() (*os.File, error) { return tty, nil })
	got, ok := rv.(tui.Reviewer)
	if !ok || got.Input != tty || got.Output != tty {
		t.Fatalf("redirected output: reviewer %#v, want one on the terminal", rv)
	}
	done()
	if _, err := tty.Write([]byte("x")); err == nil {
		t.Error("the terminal was left open")
	}

	rv, _ = terminalReviewer(r, w, func() (*os.File, error) { return nil, errors.New("no such device") })
	dir, file := workspace(t)
	code, stdout, _ := runWith(t, rv, "--json", "-C", dir, file)
	if code != exitRejected || !strings.Contains(stdout, "no terminal to review on") || !strings.Contains(stdout, `"status": "error"`) {
		t.Errorf("no terminal: exit %d, stdout %q", code, stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "greet.go")); string(b) != greet {
		t.Error("a refused review changed greet.go")
	}
}

// H5: --help and --version print on standard output and exit 0.
func TestHelpAndVersionOnStdout(t *testing.T) {
	for arg, want := range map[string]string{"--help": "usage: tui", "-h": "usage: tui", "--version": "tui "} {
		code, stdout, stderr := runCommand(t, "", arg)
		if code != exitApplied || !strings.HasPrefix(stdout, want) || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}
