package history

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
)

var key = []byte("0123456789abcdef0123456789abcdef")

// entry is a commit that changed a.txt from before to after.
func entry(id, before, after string) (*Entry, map[string][]byte) {
	e := &Entry{ID: id, Time: time.Unix(1767225600, 0).UTC(), Payload: "*** Begin Patch\n…",
		Files: []File{{Path: "a.txt", Name: "a.txt",
			Before: State{Exists: true, Mode: 0o644, Size: int64(len(before)), Hash: Hash([]byte(before))},
			After:  State{Exists: true, Mode: 0o644, Size: int64(len(after)), Hash: Hash([]byte(after))}}},
		Added: 1, Removed: 1}
	return e, map[string][]byte{Hash([]byte(before)): []byte(before)}
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
	if err != nil || len(list) != 1 || list[0].ID != "00112233aabb" || list[0].Seq != 1 || list[0].Files[0].Before.Hash != Hash([]byte("one\n")) {
		t.Fatalf("List = %+v, %v", list, err)
	}
	b, err := s.Content(list[0].Files[0].Before.Hash)
	if err != nil || string(b) != "one\n" {
		t.Fatalf("Content = %q, %v", b, err)
	}
	afero.WriteFile(fsys, path.Join("/state/h/blobs", Hash([]byte("one\n"))), []byte("ONE\n"), 0o600)
	if _, err := s.Content(Hash([]byte("one\n"))); err == nil {
		t.Error("a content changed on disk was returned")
	}
}

// U1: a store copied in, planted or tampered with is never read as a record: an entry
// sealed with another key, one changed by a byte, a half-written temporary file and one
// whose sealed name leaves the workspace are all skipped.
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
	bad, c3 := entry("cccccccccccc", "p\n", "q\n")
	bad.Files[0].Name = "../outside.txt"
	if err := s.Record(bad, c3); err != nil {
		t.Fatal(err)
	}
	name := "/h/entries/0000000001-aaaaaaaaaaaa.json"
	b, _ := afero.ReadFile(fsys, name)
	afero.WriteFile(fsys, "/h/entries/0000000009-dddddddddddd.json", []byte(strings.Replace(string(b), `"added":1`, `"added":2`, 1)), 0o600)
	afero.WriteFile(fsys, "/h/entries/0000000010-eeeeeeeeeeee.json.tmp-1", b, 0o600)
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "aaaaaaaaaaaa" {
		t.Errorf("List = %+v, want only the entry sealed with this key", list)
	}
}

// U1, U4: past its entry limit the store drops its oldest entries and the contents only
// they named; a new commit drops the entries that were undone, which could be redone.
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
	if _, err := s.Content(Hash([]byte("v0\n"))); err == nil {
		t.Error("the content only a dropped entry named is still kept")
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
	if len(list) != 3 || list[2].ID != "0000000000ff" || list[1].ID != fmt.Sprintf("%012x", 4) {
		t.Errorf("after a new commit: %+v, want the undone entry dropped", list)
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
