package history

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
)

var key = []byte("0123456789abcdef0123456789abcdef")

// entry is a commit that changed a.txt from before to after.
func entry(id, before, after string) (*Entry, []Content) {
	e := &Entry{ID: id, Time: time.Unix(1767225600, 0).UTC(), Payload: "*** Begin Patch\n…",
		Files: []File{{Path: "a.txt", Name: "a.txt",
			Before: State{Exists: true, Mode: 0o644, Blob: 0},
			After:  State{Exists: true, Mode: 0o644, Blob: 1}}},
		Added: 1, Removed: 1}
	return e, []Content{Bytes(before), Bytes(after)}
}

// U1: an entry recorded is listed with its files, and its contents come back checked.
func TestRecordAndList(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/state/h", key, Limits{})
	e, c := entry("00112233aabb", "one\n", "two\n")
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].ID != "00112233aabb" || list[0].Seq != 1 || list[0].Files[0].Name != "a.txt" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	for i, want := range []string{"one\n", "two\n"} {
		b, err := s.Content(&list[0], i)
		if err != nil || string(b) != want {
			t.Fatalf("Content(%d) = %q, %v", i, b, err)
		}
	}
	raw, _ := afero.ReadFile(fsys, list[0].file)
	afero.WriteFile(fsys, list[0].file, bytes.Replace(raw, []byte("one\n"), []byte("ONE\n"), 1), 0o600)
	list, _ = s.List() // an entry read anew reads its contents anew
	if _, err := s.Content(&list[0], 0); err == nil {
		t.Error("a content changed on disk was returned")
	}
}

// U1: a store copied in, planted or tampered with is never read as a record: an entry
// sealed with another key, one changed by a byte, one cut short, a half-written
// temporary file and one whose sealed name leaves the workspace are all skipped.
func TestHostileEntriesSkipped(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	e, c := entry("aaaaaaaaaaaa", "one\n", "two\n")
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	other := Open(fsys, "/h", []byte("another key, another user......"), Limits{})
	e2, c2 := entry("bbbbbbbbbbbb", "x\n", "y\n")
	if err := other.Record(e2, c2); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(*Entry){
		func(e *Entry) { e.Files[0].Name = "../outside.txt" },
		func(e *Entry) { e.Files[0].Name = "/etc/passwd" },
		func(e *Entry) { e.Files[0].Name = "a/../../b" },
		func(e *Entry) { e.Files[0].From = "elsewhere.txt" },
		func(e *Entry) { e.Files[0].After.Blob = 7 },
		func(e *Entry) { e.Files[0].After.Mode |= 1 << 31 },
		func(e *Entry) { e.Files = append(e.Files, e.Files[0]) },
		func(e *Entry) { e.Made = []string{"dir"} }, // above no file the change made
		func(e *Entry) { e.Made = []string{".."} },
	} {
		e3, c3 := entry("cccccccccccc", "p\n", "q\n")
		bad(e3)
		if err := s.Record(e3, c3); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.List(); len(list) != 1 {
			t.Fatalf("an entry naming %+v was read", e3.Files)
		}
	}
	good, _ := s.List()
	raw, _ := afero.ReadFile(fsys, good[0].file)
	for i, b := range map[string][]byte{
		"0000000009-dddddddddddd.entry":       bytes.Replace(raw, []byte(`"added":1`), []byte(`"added":2`), 1),
		"0000000010-eeeeeeeeeeee.entry":       raw[:len(raw)-3],
		"0000000011-ffffffffffff.entry":       raw,
		"0000000013-ffffffffffff.99.entry":    raw,
		"0000000012-aaaaaaaaaaab.entry.tmp-1": raw,
	} {
		afero.WriteFile(fsys, "/h/entries/"+i, b, 0o600)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "aaaaaaaaaaaa" {
		t.Errorf("List = %+v, want only the entry sealed with this key", list)
	}
}

// U4: Undoable is the newest entry not undone; Redoable the one undone last.
func TestUndoableRedoable(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	if _, ok, err := s.Undoable(); ok || err != nil {
		t.Fatalf("an empty store has something to undo: %v", err)
	}
	for i := range 3 {
		e, c := entry(fmt.Sprintf("%012x", i+1), fmt.Sprintf("v%d\n", i), fmt.Sprintf("v%d\n", i+1))
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	step := func(wantUndo, wantRedo int) {
		t.Helper()
		u, uok, _ := s.Undoable()
		r, rok, _ := s.Redoable()
		if (wantUndo == 0) == uok || uok && u.Seq != wantUndo || (wantRedo == 0) == rok || rok && r.Seq != wantRedo {
			t.Fatalf("Undoable = %d %v, Redoable = %d %v; want %d and %d", u.Seq, uok, r.Seq, rok, wantUndo, wantRedo)
		}
	}
	step(3, 0)
	s.SetUndone(fmt.Sprintf("%012x", 3), true)
	step(2, 3)
	s.SetUndone(fmt.Sprintf("%012x", 2), true)
	step(1, 2)
	s.SetUndone(fmt.Sprintf("%012x", 2), false)
	step(2, 3)
}

// U1, U4: past its entry limit the store drops its oldest entries; a new commit drops
// the entries that were undone, which could be redone.
func TestPruneAndDropUndone(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{Entries: 3})
	for i := range 5 {
		e, c := entry(fmt.Sprintf("%012x", i+1), fmt.Sprintf("v%d\n", i), fmt.Sprintf("v%d\n", i+1))
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := s.List()
	if len(list) != 3 || list[0].Seq != 3 || list[2].Seq != 5 {
		t.Fatalf("List = %+v, want entries 3 to 5", list)
	}
	if err := s.SetUndone(list[2].ID, true); err != nil {
		t.Fatal(err)
	}
	if list, _ = s.List(); !list[2].Undone {
		t.Fatal("the undone mark is not listed")
	}
	e, c := entry("0000000000ff", "w\n", "z\n")
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	list, _ = s.List()
	if len(list) != 3 || list[2].ID != "0000000000ff" || list[2].Seq != 5 || list[1].ID != fmt.Sprintf("%012x", 4) {
		t.Errorf("after a new commit: %+v, want the undone entry dropped", list)
	}
	if names, _ := afero.ReadDir(fsys, "/h/undone"); len(names) != 0 {
		t.Errorf("the dropped entry's mark is kept: %v", names)
	}
}

// U1: past its byte limit the store drops its oldest entries, keeping at least the newest.
func TestPruneByBytes(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{Bytes: 3000})
	for i := range 3 {
		big := strings.Repeat(fmt.Sprint(i), 1500)
		e, c := entry(fmt.Sprintf("%012x", i+1), big, "small\n")
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := s.List()
	if len(list) != 1 || list[0].Seq != 3 {
		t.Errorf("List = %d entries, want only the newest within 3,000 bytes", len(list))
	}
}

// U2, U4: a damaged newest entry is never passed over, which would undo the change
// before it instead: Undoable refuses with a *DamagedError, removing the damaged
// entries; the next Undoable then picks the entry before, as Picks does. A redo whose
// entry is damaged is refused the same way.
func TestDamagedPickRefusedThenRemoved(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	for i := range 3 {
		e, c := entry(fmt.Sprintf("%012x", i+1), "a\n", "b\n")
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	damage := func(seq int) {
		t.Helper()
		f, _ := afero.Glob(fsys, fmt.Sprintf("/h/entries/%010d-%012x.*.entry", seq, seq))
		if len(f) != 1 {
			t.Fatalf("entry %d is in %v, want one file", seq, f)
		}
		afero.WriteFile(fsys, f[0], []byte("cut short"), 0o600)
	}
	damage(3)
	var d *DamagedError
	if _, ok, err := s.Undoable(); ok || !errors.As(err, &d) || d.ID != "000000000003" || !d.Left {
		t.Fatalf("Undoable over a damaged newest entry = %v, %v; want a DamagedError naming it, one left", ok, err)
	}
	if _, _, err := s.Undoable(); !errors.As(err, &d) {
		t.Fatalf("Undoable passed over the damaged entry before RemoveDamaged: %v", err)
	}
	if n, err := s.RemoveDamaged(); n != 1 || err != nil {
		t.Fatalf("RemoveDamaged = %d, %v; want the one damaged entry", n, err)
	}
	e, ok, err := s.Undoable()
	if err != nil || !ok || e.Seq != 2 {
		t.Fatalf("the next Undoable = %d %v %v, want entry 2", e.Seq, ok, err)
	}
	if id, err := s.Picks(true); err != nil || id != e.ID {
		t.Errorf("Picks = %q, %v; want %q, the entry Undoable chose", id, err, e.ID)
	}
	s.SetUndone(e.ID, true)
	s.SetUndone("000000000001", true)
	damage(1)
	if _, ok, err := s.Undoable(); ok || err != nil {
		t.Errorf("Undoable with every entry undone = %v, %v; want nothing, reading no entry", ok, err)
	}
	if _, ok, err := s.Redoable(); ok || !errors.As(err, &d) || d.ID != "000000000001" || !d.Left {
		t.Fatalf("Redoable over a damaged entry = %v, %v; want a DamagedError naming it, entry 2 left", ok, err)
	}
	s.RemoveDamaged()
	if e, ok, err := s.Redoable(); err != nil || !ok || e.Seq != 2 {
		t.Errorf("the next Redoable = %d %v %v, want entry 2", e.Seq, ok, err)
	}
}

// U1, U2: a change the history missed (its note, with no entry) is never passed over by
// an undo: while a newer entry is recorded, that one is undone as usual; once the undo
// reaches the missed change, it is refused with an *UnrecordedError until the note is
// forgotten, and then the undo goes on to the entry before it.
func TestUnrecordedChangeStopsTheUndo(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	record := func(id string) {
		t.Helper()
		e, c := entry(id, "a\n", "b\n")
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	record("000000000001")
	time.Sleep(2 * time.Millisecond) // the note is newer than entry 1, by its time
	if err := s.Intend("00000000000a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	record("000000000002")
	if e, ok, err := s.Undoable(); err != nil || !ok || e.ID != "000000000002" {
		t.Fatalf("Undoable = %v %v %v, want entry 2, newer than the missed change", e.ID, ok, err)
	}
	s.SetUndone("000000000002", true)
	var u *UnrecordedError
	if _, ok, err := s.Undoable(); ok || !errors.As(err, &u) || !u.Left {
		t.Fatalf("Undoable past the missed change = %v, %v; want an UnrecordedError with entry 1 left", ok, err)
	}
	if err := s.ForgetUnrecorded(); err != nil {
		t.Fatal(err)
	}
	if e, ok, err := s.Undoable(); err != nil || !ok || e.ID != "000000000001" {
		t.Errorf("Undoable once the note is forgotten = %v %v %v, want entry 1", e.ID, ok, err)
	}
}

// U4: a change the history missed that came after an undo drops the redo, as a recorded
// commit does: the redo would apply the undone change on top of it.
func TestUnrecordedChangeAfterUndoDropsRedo(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	e, c := entry("000000000001", "a\n", "b\n")
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	s.SetUndone("000000000001", true)
	if _, ok, err := s.Redoable(); !ok || err != nil {
		t.Fatalf("Redoable after the undo = %v, %v", ok, err)
	}
	time.Sleep(2 * time.Millisecond)
	s.Intend("00000000000a")
	if e, ok, err := s.Redoable(); ok || err != nil {
		t.Errorf("Redoable after a missed change = %v %v %v, want nothing to redo", e.ID, ok, err)
	}
}

// U4: an undone mark records the files an undo's review kept back; KeptBack reads only
// names of the entry's files, and nothing from a mark that is not such a list (a mark
// is the store's, but checked before use like the rest of it).
func TestKeptBackMark(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	e := &Entry{ID: "00000000000a", Files: []File{{Path: "f", Name: "f"}, {Path: "g", Name: "g"}}}
	if err := s.MarkUndone(e.ID, true, []string{"f", "elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if got := s.KeptBack(e); !slices.Equal(got, []string{"f"}) {
		t.Errorf("KeptBack = %q, want [f]", got)
	}
	for _, planted := range []string{"", "not json", `{"f":1}`, `["f"` + strings.Repeat(" ", maxMark) + `]`} {
		afero.WriteFile(s.fs, path.Join(s.undone(), e.ID), []byte(planted), 0o600)
		if got := s.KeptBack(e); got != nil {
			t.Errorf("KeptBack of the mark %.20q = %q, want none", planted, got)
		}
	}
	if err := s.SetUndone(e.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := s.KeptBack(e); got != nil {
		t.Errorf("KeptBack after a redo = %q", got)
	}
}
