package applypatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// U1: a user history lives under the state directory, outside the workspace; a workspace
// deleted and made again (as another directory: a filesystem may give a new directory the
// inode of one just removed, and then it is the same identity) has no history, and the
// history of the one that is gone is swept, so deleted trees leave no bytes behind.
func TestUserHistorySweepsGoneWorkspaces(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws := filepath.Join(t.TempDir(), "ws")
	apply := func() *History { return applyRecorded(t, ws) }
	os.Mkdir(ws, 0o755)
	first := apply()
	if list, err := first.Entries(); err != nil || len(list) != 1 {
		t.Fatalf("Entries = %v, %v", list, err)
	}
	if names, _ := os.ReadDir(ws); len(names) != 1 {
		t.Errorf("the workspace holds %v: the history must live outside it", names)
	}
	os.Mkdir(ws+".new", 0o755) // made while the old one exists, so never its inode
	os.RemoveAll(ws)
	os.Rename(ws+".new", ws)
	second := apply()
	if list, _ := second.Entries(); len(list) != 1 {
		t.Errorf("the new workspace has %d entries, want its own one", len(list))
	}
	if _, err := os.Stat(first.dir); !os.IsNotExist(err) {
		t.Errorf("the history of the workspace that is gone is kept: %v", err)
	}
	if dirs, _ := os.ReadDir(filepath.Join(state, "applypatch", "history")); len(dirs) != 1 {
		t.Errorf("the state directory holds %d histories, want 1", len(dirs))
	}
}

// U1: a run checks a bounded number of other workspaces' histories, so that a state
// directory holding hundreds does not slow every run; the ones that are gone are still
// all removed over a few runs, and a live workspace's history never is.
func TestUserHistorySweepIsBounded(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	all := filepath.Join(state, "applypatch", "history")
	live := t.TempDir()
	liveHistory, err := UserHistory(live)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := liveHistory.writing(); err != nil { // writes its workspace file
		t.Fatal(err)
	}
	const gone = 2*sweepBudget + 3
	for i := range gone {
		dir := filepath.Join(all, fmt.Sprintf("%032x", i))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		// another directory at its path: gone for good
		if err := os.WriteFile(filepath.Join(dir, workspaceFile), []byte(t.TempDir()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		dirs, err := os.ReadDir(all)
		if err != nil {
			t.Fatal(err)
		}
		return len(dirs)
	}
	ws := t.TempDir()
	before := count()
	for run := 0; run < 4; run++ { // each run removes at least sweepBudget-1 gone ones
		h, err := UserHistory(ws)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.writing(); err != nil { // writes its own workspace file
			t.Fatal(err)
		}
		h.sweepStart()() // sweeps, as a commit does, and waits for it
		after := count()
		if run == 0 {
			after-- // this workspace's own history, made by this run
		}
		// The live workspace's history may be among the ones checked, and is kept.
		if removed, least := before-after, min(sweepBudget-1, before-2); removed > sweepBudget || removed < least {
			t.Errorf("run %d removed %d gone histories, want from %d to %d", run, removed, least, sweepBudget)
		}
		before = count()
	}
	if count() != 2 {
		t.Errorf("%d histories left after the gone ones were checked, want the live workspace's and this one's", count())
	}
	if _, err := os.Stat(liveHistory.dir); err != nil {
		t.Errorf("the history of a live workspace was removed: %v", err)
	}
}

// U1: the history of a workspace moved away for a while is kept, whatever runs in other
// workspaces meanwhile, and is there again when it comes back; one missing for longer
// than the grace period is removed. A run that only reads a history makes nothing.
func TestUserHistoryKeptWhileWorkspaceAway(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	ha := applyRecorded(t, a)
	os.Rename(a, a+".away")
	applyRecorded(t, b) // sweeps: a is the only other history
	os.Rename(a+".away", a)
	if list, err := ha.Entries(); err != nil || len(list) != 1 {
		t.Fatalf("the history of a workspace moved away and back: %v, %v", list, err)
	}

	fresh := filepath.Join(root, "fresh")
	os.Mkdir(fresh, 0o755)
	h, err := UserHistory(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := h.Entries(); err != nil || len(list) != 0 {
		t.Fatalf("a new workspace's history: %v, %v", list, err)
	}
	if _, err := os.Stat(h.dir); !os.IsNotExist(err) {
		t.Errorf("listing a history made its directory: %v", err)
	}

	os.Rename(a, a+".away")
	all := filepath.Dir(ha.dir)
	sweepHistories(all, "", time.Now()) // found missing: marked
	sweepHistories(all, "", time.Now().Add(sweepGrace/2))
	if _, err := os.Stat(ha.dir); err != nil {
		t.Fatalf("a history removed before its grace: %v", err)
	}
	sweepHistories(all, "", time.Now().Add(sweepGrace+time.Hour))
	if _, err := os.Stat(ha.dir); !os.IsNotExist(err) {
		t.Errorf("a history missing its workspace past the grace period is kept: %v", err)
	}
}

// U1: a workspace moved away and linked from where it was, or whose path a file took
// for a while, is not gone: its history is kept past a commit elsewhere.
func TestUserHistoryKeptBehindLinkOrFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		away func(ws, elsewhere string) // moves ws to elsewhere, and puts something at ws
	}{
		{"moved behind a link", func(ws, elsewhere string) {
			os.Rename(ws, elsewhere)
			os.Symlink(elsewhere, ws)
		}},
		{"a file in its place", func(ws, elsewhere string) {
			os.Rename(ws, elsewhere)
			os.WriteFile(ws, []byte("x"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			root := t.TempDir()
			a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
			os.Mkdir(a, 0o755)
			os.Mkdir(b, 0o755)
			ha := applyRecorded(t, a)
			tc.away(a, filepath.Join(root, "elsewhere"))
			applyRecorded(t, b) // sweeps: a's is the only other history
			os.Remove(a)
			os.Rename(filepath.Join(root, "elsewhere"), a)
			if list, err := ha.Entries(); err != nil || len(list) != 1 {
				t.Errorf("the history after the workspace came back: %v, %v", list, err)
			}
		})
	}
}

// U1: a user history whose directory is a symbolic link (to another workspace's history)
// is not used: the link would lead this workspace's undo to the other's changes, and
// mark them undone there.
func TestUserHistoryRefusesLinkedDirectory(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a, b := t.TempDir(), t.TempDir()
	ha, err := UserHistory(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Add File: a.txt\n+a"), &Options{Workspace: a, History: ha}); err != nil {
		t.Fatal(err)
	}
	hb, err := UserHistory(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ha.dir, hb.dir); err != nil {
		t.Fatal(err)
	}
	if _, err := UserHistory(b); err == nil {
		t.Fatal("a history directory that is a symbolic link to another workspace's is used")
	}
	if list, err := ha.Entries(); err != nil || len(list) != 1 || list[0].Undone {
		t.Errorf("the other workspace's history: %v, %v", list, err)
	}
}

// applyRecorded adds a file to the workspace ws on the operating system's filesystem,
// recorded in its user history, which it returns.
func applyRecorded(t *testing.T, ws string) *History {
	t.Helper()
	h, err := UserHistory(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Add File: f.txt\n+f"), &Options{Workspace: ws, History: h}); err != nil {
		t.Fatal(err)
	}
	return h
}
