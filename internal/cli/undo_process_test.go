package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/applypatch/applypatch/internal/fence"
)

// TestUndoKilledBeforeHistoryMarkSettles kills a real applypatch --undo (and then a
// --redo) after it became final (its journal's record gone) and before the history
// marked the change: the next run settles the history from what the tree holds, so the
// undone change is offered for redo, the directories it made are gone, and a hand edit
// made before the undo survives the round trip (U2, U4, X11).
func TestUndoKilledBeforeHistoryMarkSettles(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\nb\nc\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("x\ny\n1\n2\n3\n4\n5\n6\n"), 0o755)
	payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n+B\n" +
		"*** Update File: b.txt\n*** Move to: sub/b2.txt\n@@\n x\n-y\n+Y\n" +
		"*** Add File: n/new.txt\n+new\n*** End Patch\n"
	if out, err := command(t, nil, "-C", ws, payload).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	b2 := filepath.Join(ws, "sub", "b2.txt")
	edited, _ := os.ReadFile(b2)
	os.WriteFile(b2, []byte(strings.Replace(string(edited), "5\n", "5 by hand\n", 1)), 0o755)
	applied := snapshot(t, ws)

	killFinal(t, ws, "--undo")
	out := runIn(t, ws, "--recover")
	if !strings.Contains(out, "the undo of the change") || !strings.Contains(out, "redo applies it again") {
		t.Errorf("--recover said %q, want the undo it settled", out)
	}
	for _, d := range []string{"sub", "n"} {
		if _, err := os.Lstat(filepath.Join(ws, d)); !os.IsNotExist(err) {
			t.Errorf("%s/ is left after the settled undo (%v)", d, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b.txt")); string(b) != "x\ny\n1\n2\n3\n4\n5 by hand\n6\n" {
		t.Errorf("b.txt = %q, want it moved back with the hand edit", b)
	}
	if !undoneInHistory(t, ws) {
		t.Fatal("the history does not list the change undone after --recover")
	}

	killFinal(t, ws, "--redo")
	if out := runIn(t, ws, "--recover"); !strings.Contains(out, "the redo of the change") {
		t.Errorf("--recover said %q, want the redo it settled", out)
	}
	if undoneInHistory(t, ws) {
		t.Fatal("the history still lists the change undone after the redo was settled")
	}
	if got := snapshot(t, ws); !sameTree(got, applied) {
		t.Errorf("after the settled redo the tree is not the change with the hand edit:\n%v\nwant\n%v", got, applied)
	}
	runIn(t, ws, "--undo") // the round trip goes on from the settled history
	runIn(t, ws, "--redo")
	if got := snapshot(t, ws); !sameTree(got, applied) {
		t.Errorf("after another undo and redo the tree is not the change with the hand edit")
	}
}

// killFinal runs applypatch with args in ws, slowed, and kills it once its commit is
// final: the journal's record removed, its backups not yet, so the history is unmarked.
func killFinal(t *testing.T, ws string, args ...string) {
	t.Helper()
	cmd := command(t, slowEnvFor(150), append([]string{"-C", ws}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	recorded := false // the record was seen: its removal makes the commit final
	for time.Now().Before(deadline) {
		if dir := journalDir(ws); dir != "" {
			_, err := os.Lstat(filepath.Join(dir, "journal.json"))
			if err == nil {
				recorded = true
			} else if recorded && os.IsNotExist(err) {
				cmd.Process.Kill()
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatalf("%v never became final with its journal still there", args)
}

// journalDir is the journal directory in ws, or "".
func journalDir(ws string) string {
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), fence.JournalPrefix+"-") {
			return filepath.Join(ws, e.Name())
		}
	}
	return ""
}

// runIn runs applypatch with args in ws and returns its standard output.
func runIn(t *testing.T, ws string, args ...string) string {
	t.Helper()
	out, err := command(t, nil, append([]string{"-C", ws}, args...)...).Output()
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

// undoneInHistory reports whether the newest entry of ws's history is undone.
func undoneInHistory(t *testing.T, ws string) bool {
	t.Helper()
	var list []struct {
		Undone bool `json:"undone"`
	}
	if err := json.Unmarshal([]byte(runIn(t, ws, "--history", "--json")), &list); err != nil || len(list) == 0 {
		t.Fatalf("--history --json: %v, %d entries", err, len(list))
	}
	return list[0].Undone
}
