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

// settled is a workspace whose history holds one commit, for a note of its revert to be
// planted as a stopped undo or redo would leave it.
type settled struct {
	ws, real, id string // the workspace, its real name, and the commit's entry
	h            *History
	opts         *Options
	s            *history.Store
}

// newSettled writes files into a new workspace, applies the patch sections to it with a
// history and returns them.
func newSettled(t *testing.T, files map[string]string, sections string) *settled {
	t.Helper()
	ws := t.TempDir()
	for name, text := range files {
		os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644)
	}
	h := NewHistory(afero.NewOsFs(), t.TempDir())
	opts := &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch(sections), opts); err != nil {
		t.Fatal(err)
	}
	list, _ := h.Entries()
	real, _ := filepath.EvalSymlinks(ws)
	s, _ := h.opened()
	return &settled{ws: ws, real: real, id: list[0].ID, h: h, opts: opts, s: s}
}

// undone reports whether the newest entry is marked undone.
func (f *settled) undone() bool {
	list, _ := f.h.Entries()
	return list[0].Undone
}

// undoOfTwo is the note's path of an undo that found a.txt holding "two" and left "one".
var undoOfTwo = history.PathNote{Path: "a.txt", Found: &two, Left: stateOf([]byte("one\n"), 0o644)}

// two is the state of a.txt holding "two".
var two = stateOf([]byte("two\n"), 0o644)

// U2, X11: the note of an undo that never became final (recovery undid its commit, so the
// tree does not hold what the note says it left) is dropped and the entry left as it
// was; a note of another workspace sharing the history is left to it. The next undo is
// the ordinary one.
func TestRevertNoteOfUnfinishedUndoDropped(t *testing.T) {
	f := newSettled(t, map[string]string{"a.txt": "one\n"}, "*** Update File: a.txt\n@@\n-one\n+two")
	a, opts, s := filepath.Join(f.ws, "a.txt"), f.opts, f.s
	s.NoteRevert(&history.RevertNote{ID: f.id, Undo: true, Workspace: f.real, Paths: []history.PathNote{undoOfTwo}})
	s.NoteRevert(&history.RevertNote{ID: "0000000000ee", Undo: true, Workspace: "/elsewhere", Paths: []history.PathNote{undoOfTwo}})

	r, err := Recover(context.Background(), afero.NewOsFs(), opts)
	if err != nil || strings.Contains(r.String(), "had finished") {
		t.Fatalf("Recover = %q, %v; want nothing settled", r, err)
	}
	if f.undone() {
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
	if !f.undone() {
		t.Error("the undo is not marked")
	}
	if notes := s.RevertNotes(); len(notes) != 1 {
		t.Errorf("notes after the undo = %+v, want its own dropped once marked", notes)
	}
}

// U2, U5, X15: a check writes nothing, the history's marks included: an undo checked after
// an undo stopped before the history marked it leaves the note for a run that writes,
// which marks the entry from the files.
func TestRevertNoteNotSettledByCheck(t *testing.T) {
	f := newSettled(t, map[string]string{"a.txt": "one\n"}, "*** Update File: a.txt\n@@\n-one\n+two")
	// The undo's files were put back and its note written; its process stopped there.
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("one\n"), 0o644)
	f.s.NoteRevert(&history.RevertNote{ID: f.id, Undo: true, Workspace: f.real, Paths: []history.PathNote{undoOfTwo}})

	Undo(dryrun.With(context.Background()), afero.NewOsFs(), f.opts)
	if f.undone() || len(f.s.RevertNotes()) != 1 {
		t.Fatalf("a checked undo marked the entry (%v) or dropped the note", f.undone())
	}
	r, err := Recover(context.Background(), afero.NewOsFs(), f.opts)
	if err != nil || !strings.Contains(r.String(), "the undo of the change "+f.id+" had finished") {
		t.Fatalf("Recover = %q, %v; want the undo settled", r, err)
	}
	if !f.undone() || len(f.s.RevertNotes()) != 0 {
		t.Errorf("after recovery the entry is undone %v with %d notes; want it marked, the note gone", f.undone(), len(f.s.RevertNotes()))
	}
	if _, err := Redo(context.Background(), afero.NewOsFs(), f.opts); err != nil {
		t.Errorf("Redo after the settled undo: %v", err)
	}
}

// U2, X11: an undo stopped after it became final, whose files were then edited by hand
// before the next run, is still settled: no path holds what the undo found, one holds
// what it left, so it was final; the entry is marked and the edit kept.
func TestRevertNoteSettledAfterHandEdit(t *testing.T) {
	f := newSettled(t, map[string]string{"a.txt": "one\n", "b.txt": "x\ny\n"},
		"*** Update File: a.txt\n@@\n-one\n+two\n*** Update File: b.txt\n@@\n-x\n+X")
	a, b := filepath.Join(f.ws, "a.txt"), filepath.Join(f.ws, "b.txt")
	state := func(text string) history.PathState { return stateOf([]byte(text), 0o644) }
	found := func(text string) *history.PathState { st := state(text); return &st }
	// The undo put both files back and was stopped; b.txt was then edited by hand.
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("x\ny by hand\n"), 0o644)
	f.s.NoteRevert(&history.RevertNote{ID: f.id, Undo: true, Workspace: f.real, Paths: []history.PathNote{
		{Path: "a.txt", Found: found("two\n"), Left: state("one\n")},
		{Path: "b.txt", Found: found("X\ny\n"), Left: state("x\ny\n")}}})

	r, err := Recover(context.Background(), afero.NewOsFs(), f.opts)
	if err != nil || !strings.Contains(r.String(), "the undo of the change "+f.id+" had finished") {
		t.Fatalf("Recover = %q, %v; want the undo settled", r, err)
	}
	if !f.undone() {
		t.Fatal("the entry is not marked undone")
	}
	if got, _ := os.ReadFile(b); string(got) != "x\ny by hand\n" {
		t.Errorf("b.txt = %q, want the hand edit kept", got)
	}

	// The same, but recovery had put a.txt back as the undo found it: not final.
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+three"), f.opts); err != nil {
		t.Fatal(err)
	}
	list, _ := f.h.Entries()
	f.s.NoteRevert(&history.RevertNote{ID: list[0].ID, Undo: true, Workspace: f.real, Paths: []history.PathNote{
		{Path: "a.txt", Found: found("three\n"), Left: state("one\n")},
		{Path: "b.txt", Found: found("x\ny by hand\n"), Left: state("x\n")}}})
	os.WriteFile(b, []byte("x\n"), 0o644) // one path as the undo would leave it, by hand
	if r, _ := Recover(context.Background(), afero.NewOsFs(), f.opts); strings.Contains(r.String(), "had finished") {
		t.Errorf("Recover settled an undo whose path holds what it found: %q", r)
	}
	if f.undone() {
		t.Error("the entry is marked undone though a.txt holds what the undo found")
	}
}
