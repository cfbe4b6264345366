package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
)

// TestMain keeps the state of every test of the command (the journal key and, since a run
// records what it applies, the history) in a directory of its own, never the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tui-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// greetApplied is greet.go once the payload is applied.
const greetApplied = "package greet\n\nfunc hello() string {\n\treturn \"hello, world\"\n}\n"

// applied gives the test a state directory of its own, applies the payload to a new
// workspace through the command, which records it in the workspace's history, and
// returns the workspace.
func applied(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, file := workspace(t)
	if code, stdout, stderr := runCommand(t, "\x03\x03", "-C", dir, file); code != exitApplied {
		t.Fatalf("applying: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	return dir
}

// noReview is a reviewer that must not be reached: the run ends before any review.
func noReview(t *testing.T) applypatch.Reviewer {
	return applypatch.ReviewerFunc(func(context.Context, *applypatch.Session) error {
		t.Error("a review was opened")
		return errors.New("no review expected")
	})
}

// wantFiles checks greet.go and docs/notes.md, an empty notes meaning that it is absent.
func wantFiles(t *testing.T, dir, greetGo, notes string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(dir, "greet.go")); err != nil || string(b) != greetGo {
		t.Errorf("greet.go = %q (%v), want %q", b, err, greetGo)
	}
	b, err := os.ReadFile(filepath.Join(dir, "docs", "notes.md"))
	switch {
	case notes == "" && !errors.Is(err, os.ErrNotExist):
		t.Errorf("docs/notes.md = %q (%v), want it absent", b, err)
	case notes != "" && string(b) != notes:
		t.Errorf("docs/notes.md = %q (%v), want %q", b, err, notes)
	}
}

// U5: --undo reviews the undo on the terminal like a patch; applying all of it puts back
// exactly the bytes greet.go held and removes the added file, and the result says what
// was undone.
func TestUndoRevertsWhatWasApplied(t *testing.T) {
	dir := applied(t)
	code, stdout, stderr := runCommand(t, "\x03\x03", "-C", dir, "--undo")
	if code != exitApplied {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "Applied patch: 2 changes\n") || !strings.Contains(stdout, "\nUndid the change ") ||
		!strings.HasSuffix(stdout, " (greet.go, docs/notes.md); redo applies it again.\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	wantFiles(t, dir, greet, "")
}

// U5: a person who deselects a file in the review of an undo keeps it as the change left
// it; the other file is reverted.
func TestUndoOfDeselectedFileKeepsIt(t *testing.T) {
	dir := applied(t)
	// The undo reverts the last operation first: its first row is docs/notes.md.
	code, stdout, stderr := runCommand(t, " \x03\x03", "-C", dir, "--undo")
	if code != exitApplied {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "\nRejected: docs/notes.md\nApplied: greet.go hunk 1\nUndid the change ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	wantFiles(t, dir, greet, "# Notes\n")
}

// U5: with nothing to undo or redo the command says so in the applypatch command's
// sentence, opens no review and exits 1; a patch applied with --no-history is not
// recorded, so there is still nothing to undo.
func TestNothingToUndoOrRedo(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, file := workspace(t)
	for flag, want := range map[string]error{"--undo": applypatch.ErrNothingToUndo, "--redo": applypatch.ErrNothingToRedo} {
		code, stdout, _ := runWith(t, noReview(t), "-C", dir, flag)
		if code != exitRejected || stdout != want.Error()+"\n" {
			t.Errorf("%s: exit %d, stdout %q; want 1 and %q", flag, code, stdout, want)
		}
	}
	if code, stdout, _ := runCommand(t, "\x03\x03", "-C", dir, "--no-history", file); code != exitApplied {
		t.Fatalf("--no-history: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ := runWith(t, noReview(t), "-C", dir, "--undo")
	if code != exitRejected || stdout != applypatch.ErrNothingToUndo.Error()+"\n" {
		t.Errorf("after --no-history: exit %d, stdout %q", code, stdout)
	}
	wantFiles(t, dir, greetApplied, "# Notes\n")
}

// U5: an edit of the very lines the change wrote refuses the undo before any review,
// naming the file and the hunk: exit 1, and neither file is touched. The change stays
// undoable: once the line is put back, the undo goes through.
func TestUndoRefusedWhenLinesEdited(t *testing.T) {
	dir := applied(t)
	edited := strings.Replace(greetApplied, "hello, world", "hi there", 1)
	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runWith(t, noReview(t), "-C", dir, "--undo")
	if code != exitRejected || !strings.HasPrefix(stdout, "Error: cannot undo the change ") ||
		!strings.Contains(stdout, "\n- greet.go: hunk 1: the lines the change left there were edited since") ||
		!strings.Contains(stdout, "\nEvery file is as it was.") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	wantFiles(t, dir, edited, "# Notes\n")

	if err := os.WriteFile(filepath.Join(dir, "greet.go"), []byte(greetApplied), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runCommand(t, "\x03\x03", "-C", dir, "--undo"); code != exitApplied {
		t.Errorf("the undo once the line is back: exit %d, stdout %q", code, stdout)
	}
	wantFiles(t, dir, greet, "")
}

// U5: --redo reviews applying the undone change again, and applying it writes what the
// change wrote.
func TestRedoReappliesTheUndone(t *testing.T) {
	dir := applied(t)
	if code, stdout, _ := runCommand(t, "\x03\x03", "-C", dir, "--undo"); code != exitApplied {
		t.Fatalf("--undo: exit %d, stdout %q", code, stdout)
	}
	code, stdout, stderr := runCommand(t, "\x03\x03", "-C", dir, "--redo")
	if code != exitApplied || !strings.Contains(stdout, "\nRedid the change ") {
		t.Fatalf("--redo: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	wantFiles(t, dir, greetApplied, "# Notes\n")
	code, stdout, _ = runWith(t, noReview(t), "-C", dir, "--redo")
	if code != exitRejected || stdout != applypatch.ErrNothingToRedo.Error()+"\n" {
		t.Errorf("a second --redo: exit %d, stdout %q", code, stdout)
	}
}

// U5: what --stream applies is recorded too, and --undo reverts it.
func TestStreamIsRecorded(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, _ := workspace(t)
	var out, errOut strings.Builder
	in := &piecewise{pieces: []string{payload}}
	if code := run(context.Background(), []string{"-C", dir, "--stream"}, in, &out, &errOut, fakeTerminal(t, "\x03\x03")); code != exitApplied {
		t.Fatalf("--stream: exit %d, stdout %q", code, out.String())
	}
	if code, stdout, _ := runCommand(t, "\x03\x03", "-C", dir, "--undo"); code != exitApplied {
		t.Fatalf("--undo: exit %d, stdout %q", code, stdout)
	}
	wantFiles(t, dir, greet, "")
}

// U5: --undo and --redo take no payload, do not go together and read the history, so
// --no-history beside them is refused: usage errors, exit 2, nothing reviewed.
func TestUndoUsage(t *testing.T) {
	dir := applied(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--undo", "--redo"}, "tui: --undo and --redo do not go together: run one at a time\n"},
		{[]string{"--undo", payload}, "tui: --undo takes no payload\n"},
		{[]string{"--redo", "patch.txt"}, "tui: --redo takes no payload\n"},
		{[]string{"--undo", "--stream"}, "tui: --undo takes no payload: --stream reads one\n"},
		{[]string{"--no-history", "--undo"}, "tui: --no-history and --undo do not go together: --undo reads the history\n"},
	} {
		code, _, stderr := runWith(t, noReview(t), append([]string{"-C", dir}, c.args...)...)
		if code != exitUsage || !strings.HasPrefix(stderr, "usage: tui") || !strings.HasSuffix(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr ends %q; want 2 and %q", c.args, code, stderr[max(0, len(stderr)-120):], c.want)
		}
	}
	wantFiles(t, dir, greetApplied, "# Notes\n")
}
