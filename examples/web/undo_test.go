package main

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
)

// TestMain keeps the state of every test of the command (the journal key and, since a run
// records what it applies, the history) in a directory of its own, never the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "web-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A form is one request the test sends the page: its action and fields.
type form struct {
	action string
	fields url.Values
}

// submit is the form of the primary action, as pressed with the selection as it is.
var submit = form{"submit", url.Values{}}

// runPage runs the command with args, sending the page the forms in order; with no forms,
// a page served is an error of the test.
func runPage(t *testing.T, args []string, forms ...form) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(context.Background(), args, &out, &errOut, func(page string) {
		if len(forms) == 0 {
			t.Error("a page was served")
		}
		go func() {
			for _, f := range forms {
				post(t, page, f.action, f.fields)
			}
		}()
	})
	return code, out.String(), errOut.String()
}

// applied gives the test a state directory of its own, applies the payload to a new
// workspace through the page, which records it in the workspace's history, and returns
// the workspace.
func applied(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, payloadFile := workspace(t)
	if code, stdout, stderr := runPage(t, []string{"-C", dir, payloadFile}, submit); code != exitApplied {
		t.Fatalf("applying: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	wantFiles(t, dir, "uno\ntwo\n", "")
	return dir
}

// wantFiles checks a.txt and b.txt, an empty b meaning that it is absent.
func wantFiles(t *testing.T, dir, a, b string) {
	t.Helper()
	if got, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(got) != a {
		t.Errorf("a.txt = %q (%v), want %q", got, err, a)
	}
	got, err := os.ReadFile(filepath.Join(dir, "b.txt"))
	switch {
	case b == "" && !errors.Is(err, os.ErrNotExist):
		t.Errorf("b.txt = %q (%v), want it absent", got, err)
	case b != "" && string(got) != b:
		t.Errorf("b.txt = %q (%v), want %q", got, err, b)
	}
}

// U5: --undo serves the undo on the review page like a patch; submitting all of it puts
// back exactly the bytes a.txt held and the deleted b.txt, and the result says what was
// undone.
func TestUndoRevertsWhatWasApplied(t *testing.T) {
	dir := applied(t)
	code, stdout, stderr := runPage(t, []string{"-C", dir, "--undo"}, submit)
	if code != exitApplied {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.HasPrefix(stderr, "Review the undo at http://127.0.0.1:") {
		t.Errorf("stderr %q does not give the page's address", stderr)
	}
	if !strings.HasPrefix(stdout, "Applied patch: 2 changes\n") || !strings.Contains(stdout, "\nUndid the change ") ||
		!strings.HasSuffix(stdout, " (a.txt, b.txt); redo applies it again.\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	wantFiles(t, dir, "one\ntwo\n", "bee\n")
}

// U5: a person who deselects a file on the page of an undo keeps it as the change left
// it; the other file is reverted.
func TestUndoOfDeselectedFileKeepsIt(t *testing.T) {
	dir := applied(t)
	// The undo reverts the last operation first: its first file puts back b.txt.
	code, stdout, stderr := runPage(t, []string{"-C", dir, "--undo"}, form{"deselect", url.Values{"file": {"1"}}}, submit)
	if code != exitApplied {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "\nRejected: b.txt\nApplied: a.txt hunk 1\nUndid the change ") {
		t.Errorf("stdout:\n%s", stdout)
	}
	wantFiles(t, dir, "one\ntwo\n", "")
}

// U5: with nothing to undo or redo the command says so in the applypatch command's
// sentence, serves no page and exits 1; a patch applied with --no-history is not
// recorded, so there is still nothing to undo.
func TestNothingToUndoOrRedo(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, payloadFile := workspace(t)
	for flag, want := range map[string]error{"--undo": applypatch.ErrNothingToUndo, "--redo": applypatch.ErrNothingToRedo} {
		code, stdout, _ := runPage(t, []string{"-C", dir, flag})
		if code != exitRejected || stdout != want.Error()+"\n" {
			t.Errorf("%s: exit %d, stdout %q; want 1 and %q", flag, code, stdout, want)
		}
	}
	if code, stdout, _ := runPage(t, []string{"-C", dir, "--no-history", payloadFile}, submit); code != exitApplied {
		t.Fatalf("--no-history: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ := runPage(t, []string{"-C", dir, "--undo"})
	if code != exitRejected || stdout != applypatch.ErrNothingToUndo.Error()+"\n" {
		t.Errorf("after --no-history: exit %d, stdout %q", code, stdout)
	}
	wantFiles(t, dir, "uno\ntwo\n", "")
}

// U5: an edit of the very line the change wrote refuses the undo before any page is
// served, naming the file and the hunk: exit 1, and nothing is touched. The change stays
// undoable: once the line is put back, the undo goes through.
func TestUndoRefusedWhenLinesEdited(t *testing.T) {
	dir := applied(t)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("UNO\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runPage(t, []string{"-C", dir, "--undo"})
	if code != exitRejected || !strings.HasPrefix(stdout, "Error: cannot undo the change ") ||
		!strings.Contains(stdout, "\n- a.txt: hunk 1: the lines the change left there were edited since") ||
		!strings.Contains(stdout, "\nEvery file is as it was.") {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
	if strings.Contains(stdout+stderr, dir) {
		t.Errorf("output shows the host path %s", dir)
	}
	wantFiles(t, dir, "UNO\ntwo\n", "")

	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("uno\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runPage(t, []string{"-C", dir, "--undo"}, submit); code != exitApplied {
		t.Errorf("the undo once the line is back: exit %d, stdout %q", code, stdout)
	}
	wantFiles(t, dir, "one\ntwo\n", "bee\n")
}

// U5: --redo serves applying the undone change again, and submitting it writes what the
// change wrote.
func TestRedoReappliesTheUndone(t *testing.T) {
	dir := applied(t)
	if code, stdout, _ := runPage(t, []string{"-C", dir, "--undo"}, submit); code != exitApplied {
		t.Fatalf("--undo: exit %d, stdout %q", code, stdout)
	}
	code, stdout, stderr := runPage(t, []string{"-C", dir, "--redo"}, submit)
	if code != exitApplied || !strings.Contains(stdout, "\nRedid the change ") || !strings.HasPrefix(stderr, "Review the redo at ") {
		t.Fatalf("--redo: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	wantFiles(t, dir, "uno\ntwo\n", "")
	code, stdout, _ = runPage(t, []string{"-C", dir, "--redo"})
	if code != exitRejected || stdout != applypatch.ErrNothingToRedo.Error()+"\n" {
		t.Errorf("a second --redo: exit %d, stdout %q", code, stdout)
	}
}

// U5: --undo and --redo take no payload, do not go together and read the history, so
// --no-history beside them is refused: usage errors, exit 2, no page served.
func TestUndoUsage(t *testing.T) {
	dir := applied(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--undo", "--redo"}, "web: --undo and --redo do not go together: run one at a time\n"},
		{[]string{"--undo", "patch.txt"}, "web: --undo takes no payload\n"},
		{[]string{"--redo", "patch.txt"}, "web: --redo takes no payload\n"},
		{[]string{"--no-history", "--undo"}, "web: --no-history and --undo do not go together: --undo reads the history\n"},
	} {
		code, _, stderr := runPage(t, append([]string{"-C", dir}, c.args...))
		if code != exitUsage || !strings.HasPrefix(stderr, "usage: web") || !strings.HasSuffix(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr ends %q; want 2 and %q", c.args, code, stderr[max(0, len(stderr)-120):], c.want)
		}
	}
	wantFiles(t, dir, "uno\ntwo\n", "")
}
