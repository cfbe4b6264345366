package applypatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/dryrun"
	"github.com/applypatch/applypatch/internal/history"
)

// undoOfTwo is the note's path of an undo that found a.txt holding "two" and left "one".
var undoOfTwo = history.PathNote{Path: "a.txt",
	Found: &history.PathState{Exists: true, Len: 4, CRC: history.Checksum([]byte("two\n")), Mode: 0o644},
	Left:  history.PathState{Exists: true, Len: 4, CRC: history.Checksum([]byte("one\n")), Mode: 0o644}}

// U2, X11: the note of an undo that never became final (recovery undid its commit, so the
// tree does not hold what the note says it left) is dropped and the entry left as it
// was; a note of another workspace sharing the history is left to it. The next undo is
// the ordinary one.
func TestRevertNoteOfUnfinishedUndoDropped(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	a := filepath.Join(ws, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h := NewHistory(afero.NewOsFs(), state)
	opts := &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+two"), opts); err != nil {
		t.Fatal(err)
	}
	list, _ := h.Entries()
	real, _ := filepath.EvalSymlinks(ws)
	s, _ := h.opened()
	s.NoteRevert(&history.RevertNote{ID: list[0].ID, Undo: true, Workspace: real, Paths: []history.PathNote{undoOfTwo}})
	s.NoteRevert(&history.RevertNote{ID: "0000000000ee", Undo: true, Workspace: "/elsewhere", Paths: []history.PathNote{undoOfTwo}})

	r, err := Recover(context.Background(), afero.NewOsFs(), opts)
	if err != nil || strings.Contains(r.String(), "had finished") {
		t.Fatalf("Recover = %q, %v; want nothing settled", r, err)
	}
	if list, _ := h.Entries(); list[0].Undone {
		t.Fatal("the entry is marked undone though its undo never became final")
	}
	notes := s.RevertNotes()
	if len(notes) != 1 || notes[0].Workspace != "/elsewhere" {
		t.Errorf("notes after recovery = %+v, want only the other workspace's", notes)
	}
	pr, err := Undo(context.Background(), afero.NewOsFs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(a); string(b) != "one\n" {
		t.Errorf("a.txt = %q after the undo, want one", b)
	}
	if list, _ := h.Entries(); !list[0].Undone {
		t.Error("the undo is not marked")
	}
	if notes := s.RevertNotes(); len(notes) != 1 {
		t.Errorf("notes after the undo = %+v, want its own dropped once marked", notes)
	}
}

// U2, U5: a check writes nothing, the history's marks included: an undo checked after
// an undo stopped before the history marked it leaves the note for a run that writes,
// which marks the entry from the files.
func TestRevertNoteNotSettledByCheck(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	a := filepath.Join(ws, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h := NewHistory(afero.NewOsFs(), state)
	opts := &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+two"), opts); err != nil {
		t.Fatal(err)
	}
	list, _ := h.Entries()
	real, _ := filepath.EvalSymlinks(ws)
	s, _ := h.opened()
	// The undo's files were put back and its note written; its process stopped there.
	os.WriteFile(a, []byte("one\n"), 0o644)
	s.NoteRevert(&history.RevertNote{ID: list[0].ID, Undo: true, Workspace: real, Paths: []history.PathNote{undoOfTwo}})

	Undo(dryrun.With(context.Background()), afero.NewOsFs(), opts)
	if list, _ := h.Entries(); list[0].Undone || len(s.RevertNotes()) != 1 {
		t.Fatalf("a checked undo marked the entry (%v) or dropped the note", list[0].Undone)
	}
	r, err := Recover(context.Background(), afero.NewOsFs(), opts)
	if err != nil || !strings.Contains(r.String(), "the undo of the change "+list[0].ID+" had finished") {
		t.Fatalf("Recover = %q, %v; want the undo settled", r, err)
	}
	if list, _ := h.Entries(); !list[0].Undone || len(s.RevertNotes()) != 0 {
		t.Errorf("after recovery the entry is undone %v with %d notes; want it marked, the note gone", list[0].Undone, len(s.RevertNotes()))
	}
	if _, err := Redo(context.Background(), afero.NewOsFs(), opts); err != nil {
		t.Errorf("Redo after the settled undo: %v", err)
	}
}

// U2, X11: an undo stopped after it became final, whose files were then edited by hand
// before the next run, is still settled: no path holds what the undo found, one holds
// what it left, so it was final; the entry is marked and the edit kept.
func TestRevertNoteSettledAfterHandEdit(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	a, b := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("x\ny\n"), 0o644)
	h := NewHistory(afero.NewOsFs(), state)
	opts := &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(),
		patch("*** Update File: a.txt\n@@\n-one\n+two\n*** Update File: b.txt\n@@\n-x\n+X"), opts); err != nil {
		t.Fatal(err)
	}
	list, _ := h.Entries()
	real, _ := filepath.EvalSymlinks(ws)
	s, _ := h.opened()
	state4 := func(text string) history.PathState {
		return history.PathState{Exists: true, Len: int64(len(text)), CRC: history.Checksum([]byte(text)), Mode: 0o644}
	}
	found := func(text string) *history.PathState { st := state4(text); return &st }
	// The undo put both files back and was stopped; b.txt was then edited by hand.
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("x\ny by hand\n"), 0o644)
	s.NoteRevert(&history.RevertNote{ID: list[0].ID, Undo: true, Workspace: real, Paths: []history.PathNote{
		{Path: "a.txt", Found: found("two\n"), Left: state4("one\n")},
		{Path: "b.txt", Found: found("X\ny\n"), Left: state4("x\ny\n")}}})

	r, err := Recover(context.Background(), afero.NewOsFs(), opts)
	if err != nil || !strings.Contains(r.String(), "the undo of the change "+list[0].ID+" had finished") {
		t.Fatalf("Recover = %q, %v; want the undo settled", r, err)
	}
	if list, _ := h.Entries(); !list[0].Undone {
		t.Fatal("the entry is not marked undone")
	}
	if got, _ := os.ReadFile(b); string(got) != "x\ny by hand\n" {
		t.Errorf("b.txt = %q, want the hand edit kept", got)
	}

	// The same, but recovery had put a.txt back as the undo found it: not final.
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+three"), opts); err != nil {
		t.Fatal(err)
	}
	list, _ = h.Entries()
	s.NoteRevert(&history.RevertNote{ID: list[0].ID, Undo: true, Workspace: real, Paths: []history.PathNote{
		{Path: "a.txt", Found: found("three\n"), Left: state4("one\n")},
		{Path: "b.txt", Found: found("x\ny by hand\n"), Left: state4("x\n")}}})
	os.WriteFile(b, []byte("x\n"), 0o644) // one path as the undo would leave it, by hand
	if r, _ := Recover(context.Background(), afero.NewOsFs(), opts); strings.Contains(r.String(), "had finished") {
		t.Errorf("Recover settled an undo whose path holds what it found: %q", r)
	}
	if list, _ := h.Entries(); list[0].Undone {
		t.Error("the entry is marked undone though a.txt holds what the undo found")
	}
}
