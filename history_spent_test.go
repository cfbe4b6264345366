package applypatch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
)

// spentDirs lists the journal directories in the spent directory of h.
func spentDirs(t *testing.T, h *History) []string {
	t.Helper()
	list, err := os.ReadDir(filepath.Join(h.dir, "spent"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range list {
		out = append(out, d.Name())
	}
	return out
}

// noJournal fails where the workspace holds a journal directory.
func noJournal(t *testing.T, ws string) {
	t.Helper()
	list, _ := os.ReadDir(ws)
	if i := slices.IndexFunc(list, func(d os.DirEntry) bool { return strings.HasPrefix(d.Name(), fence.JournalPrefix) }); i >= 0 {
		t.Fatalf("the workspace holds the journal %s", list[i].Name())
	}
}

// recordedWorkspace makes a workspace of files that each hold "one", with a user
// history in a state directory of the test's own, and commits each changed to "two",
// recorded.
func recordedWorkspace(t *testing.T, files ...string) (ws string, opts *Options) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws = t.TempDir()
	var sections []string
	for _, n := range files {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sections = append(sections, "*** Update File: "+n+"\n@@\n-one\n+two")
	}
	h, err := UserHistory(ws)
	if err != nil {
		t.Fatal(err)
	}
	opts = &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch(sections...), opts); err != nil {
		t.Fatal(err)
	}
	return ws, opts
}

// U2, U4, PERF5: an undo's commit hands its journal directory, backups and all, to a user
// history once it is final, as a commit that records does, instead of removing its
// backups one by one before it returns; the next commit removes it beside its own work,
// and leaves only its own.
func TestUndoHandsItsJournalToTheHistory(t *testing.T) {
	ws, opts := recordedWorkspace(t, "a.txt", "b.txt")
	ctx, fsys, h := context.Background(), afero.NewOsFs(), opts.History
	revert := func(undo func(context.Context, afero.Fs, *Options) (*Proposal, error), want string) {
		t.Helper()
		pr, err := undo(ctx, fsys, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Commit(ctx, pr); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a.txt", "b.txt"} {
			if b, _ := os.ReadFile(filepath.Join(ws, n)); string(b) != want {
				t.Fatalf("%s = %q, want %q", n, b, want)
			}
		}
		noJournal(t, ws)
	}
	revert(Undo, "one\n")
	spent := spentDirs(t, h)
	if len(spent) != 1 {
		t.Fatalf("the history's spent directory holds %v after the undo, want its journal", spent)
	}
	backups, _ := os.ReadDir(filepath.Join(h.dir, "spent", spent[0]))
	if len(backups) < 2 {
		t.Errorf("the undo's journal holds %d files, want a backup of each file and its record", len(backups))
	}
	revert(Redo, "two\n")
	if after := spentDirs(t, h); len(after) != 1 || after[0] == spent[0] {
		t.Errorf("the spent directory holds %v after the redo, want the redo's journal alone (the undo's was %s)", after, spent[0])
	}
}

// X11, U2: a journal handed to the history's spent directory is a finished commit's,
// and recovery never acts on it: after the undo, Recover finds nothing to do, and the
// files stay as the undo left them.
func TestRecoverLeavesSpentJournals(t *testing.T) {
	ws, opts := recordedWorkspace(t, "a.txt")
	ctx, fsys, h := context.Background(), afero.NewOsFs(), opts.History
	pr, err := Undo(ctx, fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(ctx, pr); err != nil {
		t.Fatal(err)
	}
	if len(spentDirs(t, h)) != 1 {
		t.Fatalf("the spent directory holds %v, want the undo's journal", spentDirs(t, h))
	}
	r, err := Recover(ctx, fsys, opts)
	if err != nil || r.String() != "" {
		t.Errorf("Recover = %q, %v; want nothing to recover", r.String(), err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt = %q after recovery, want the undo's %q", b, "one\n")
	}
	noJournal(t, ws)
}

// U2, PERF5: where the history cannot take the journal directory (not on the operating
// system's filesystem), an undo removes it before it returns, as before.
func TestUndoRemovesItsJournalElsewhere(t *testing.T) {
	ctx, fsys := context.Background(), afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	h := NewHistory(fsys, "/state/history/0123456789abcdef0123456789abcdef")
	h.workspace = "/ws"
	opts := &Options{Workspace: "/ws", History: h}
	if _, err := Apply(ctx, fsys, patch("*** Update File: a.txt\n@@\n-one\n+two"), opts); err != nil {
		t.Fatal(err)
	}
	pr, err := Undo(ctx, fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(ctx, pr); err != nil {
		t.Fatal(err)
	}
	list, _ := afero.ReadDir(fsys, "/ws")
	if len(list) != 1 {
		t.Errorf("the workspace holds %d entries after the undo, want a.txt alone", len(list))
	}
	if ok, _ := afero.DirExists(fsys, "/state/history/0123456789abcdef0123456789abcdef/spent"); ok {
		t.Errorf("a history in memory was given a spent directory")
	}
}

// U1: the sweep removes the spent journal directories of another workspace that is
// still there, whose own next commit may never come, and keeps its history.
func TestSweepRemovesOthersSpentJournals(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	other := t.TempDir()
	h := applyRecorded(t, other)
	junk := filepath.Join(h.dir, "spent", "0123456789ab")
	if err := os.MkdirAll(junk, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(junk, "b0"), []byte("old\n"), 0o600)
	sweepHistories(filepath.Dir(h.dir), "keep", time.Now())
	if _, err := os.Stat(junk); !os.IsNotExist(err) {
		t.Errorf("the other workspace's spent journal is kept: %v", err)
	}
	if list, err := h.Entries(); err != nil || len(list) != 1 {
		t.Errorf("the other workspace's history: %v, %v; want its entry kept", list, err)
	}
}

// U1, X5: a panic while spent journal directories are removed, on the removal's own
// goroutine, reaches the commit's caller, and the commit rolls back.
func TestSpentPanicReachesCaller(t *testing.T) {
	defer func(f func(afero.Fs, string)) { removeSpent = f }(removeSpent)
	removeSpent = func(afero.Fs, string) { panic("removing") }
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHistory(afero.NewOsFs(), filepath.Join(t.TempDir(), "history", "0123456789abcdef0123456789abcdef"))
	h.workspace = ws
	if err := os.MkdirAll(filepath.Join(h.dir, "spent", "0123456789ab"), 0o700); err != nil {
		t.Fatal(err)
	}
	got := func() (r any) {
		defer func() { r = recover() }()
		Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-a\n+b"), &Options{Workspace: ws, History: h})
		return nil
	}()
	if got != "removing" {
		t.Fatalf("recovered %v, want the removal's panic", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt = %q after the panic, want it rolled back", b)
	}
}
