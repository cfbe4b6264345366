package history

import (
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// note is a revert note of the entry id in the workspace /ws.
func note(id string) *RevertNote {
	return &RevertNote{ID: id, Undo: true, Workspace: "/ws", KeptBack: []string{"k.txt"}, Made: []string{"sub"},
		Paths: []PathNote{{Path: "a.txt", Found: &PathState{}, Left: PathState{Exists: true, Len: 4, CRC: Checksum([]byte("one\n")), Mode: 0o644}},
			{Path: "sub/b.txt", Found: &PathState{Exists: true, Len: 1, CRC: 7, Mode: 0o755}}}}
}

// U2, X11: a revert note written is read back whole, and gone once dropped.
func TestRevertNoteRoundTrip(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	n := note("00112233aabb")
	if err := s.NoteRevert(n); err != nil {
		t.Fatal(err)
	}
	got := s.RevertNotes()
	if diff := cmp.Diff([]RevertNote{*n}, got); diff != "" {
		t.Errorf("RevertNotes (-want +got):\n%s", diff)
	}
	s.DropRevertNote(n.ID)
	if got := s.RevertNotes(); len(got) != 0 {
		t.Errorf("RevertNotes after the drop = %+v, want none", got)
	}
}

// U2, X11: a note the store did not seal (planted in the history, or sealed under
// another key), one renamed to another entry's id, one naming a path above the
// workspace, and a file cut short are never returned, and are removed; a file not named
// as a note is left alone.
func TestRevertNotePlantedIgnored(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	other := Open(fsys, "/other", []byte("another key, another user's....."), Limits{})
	if err := other.NoteRevert(note("00112233aabb")); err != nil {
		t.Fatal(err)
	}
	forged, _ := afero.ReadFile(fsys, "/other/reverting/00112233aabb")
	afero.WriteFile(fsys, "/h/reverting/00112233aabb", forged, 0o600)

	s.NoteRevert(note("0011223344cc"))
	sealed, _ := afero.ReadFile(fsys, "/h/reverting/0011223344cc")
	fsys.Remove("/h/reverting/0011223344cc")
	afero.WriteFile(fsys, "/h/reverting/0011223344dd", sealed, 0o600) // another id's name

	escape := note("0011223344ee")
	escape.Made = []string{"../outside"}
	s.NoteRevert(escape)

	afero.WriteFile(fsys, "/h/reverting/0011223344ff", sealed[:len(sealed)/2], 0o600)
	afero.WriteFile(fsys, "/h/reverting/not-an-id", []byte("x"), 0o600)

	if got := s.RevertNotes(); len(got) != 0 {
		t.Errorf("RevertNotes = %+v, want none of the planted ones", got)
	}
	for _, name := range []string{"00112233aabb", "0011223344dd", "0011223344ee", "0011223344ff"} {
		if ok, _ := afero.Exists(fsys, path.Join("/h/reverting", name)); ok {
			t.Errorf("%s is left in the notes' directory", name)
		}
	}
	if ok, _ := afero.Exists(fsys, "/h/reverting/not-an-id"); !ok {
		t.Error("a file not named as a note was removed")
	}
}
