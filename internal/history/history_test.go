package history

import (
	"bytes"
	"fmt"
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

// U4: an unsound newest entry is passed over alike by the undo's pick and by the check
// its commit makes with Picks, so the commit is not refused for an entry it never saw.
func TestPicksAgreesWithUndoable(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	for i := range 2 {
		e, c := entry(fmt.Sprintf("%012x", i+1), "a\n", "b\n")
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	newest, _ := afero.Glob(fsys, "/h/entries/0000000002-000000000002.*.entry")
	if len(newest) != 1 {
		t.Fatalf("entry 2 is in %v, want one file", newest)
	}
	afero.WriteFile(fsys, newest[0], []byte("cut short"), 0o600)
	e, ok, err := s.Undoable()
	if err != nil || !ok || e.Seq != 1 {
		t.Fatalf("Undoable = %d %v %v, want the sound entry 1", e.Seq, ok, err)
	}
	if id, err := s.Picks(true); err != nil || id != e.ID {
		t.Errorf("Picks = %q, %v; want %q, the entry Undoable chose", id, err, e.ID)
	}
}
