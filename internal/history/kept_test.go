//go:build unix

package history

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// keptEntry records an entry whose baseline ("before\n") lies in a kept directory, as a
// commit leaves it there by moving its journal's backups into the store, and whose result
// is in the entry file.
func keptEntry(t *testing.T, s *Store, id string) *Entry {
	t.Helper()
	dir, err := s.EntriesDir()
	if err != nil {
		t.Fatal(err)
	}
	dir.Close()
	kept := filepath.Join(s.entries(), KeptName(id, 7))
	if err := os.Mkdir(kept, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kept, "b0"), []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, c := entry(id, "", "after\n")
	c[0] = Kept{File: "b0", Len: 7, CRC: Checksum([]byte("before\n"))}
	e.Kept = 7
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	return e
}

// U1, PERF5: a content kept beside the entry file comes back checked like one inside
// it; changed, replaced by a link or by a FIFO, it is refused (and read without
// waiting on the FIFO), never returned as what the commit found.
func TestKeptContent(t *testing.T) {
	s := Open(afero.NewOsFs(), t.TempDir(), key, Limits{})
	keptEntry(t, s, "00000000000a")
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Kept != 7 || list[0].Blobs[0].File != "b0" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	for i, want := range []string{"before\n", "after\n"} {
		if b, err := s.Content(&list[0], i); err != nil || string(b) != want {
			t.Fatalf("Content(%d) = %q, %v; want %q", i, b, err, want)
		}
	}
	b0 := filepath.Join(s.entries(), KeptName("00000000000a", 7), "b0")
	for name, plant := range map[string]func() error{
		"changed": func() error { return os.WriteFile(b0, []byte("BEFORE\n"), 0o644) },
		"longer":  func() error { return os.WriteFile(b0, []byte("before\n\n"), 0o644) },
		"link": func() error {
			os.WriteFile(b0+".real", []byte("before\n"), 0o644)
			return os.Symlink(b0+".real", b0)
		},
		"fifo": func() error { return syscall.Mkfifo(b0, 0o600) },
	} {
		os.Remove(b0)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := s.Content(&list[0], 0)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: a kept content that is not the recorded one was returned", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: reading a kept content blocked", name)
		}
	}
}

// U1: dropping an entry drops its kept directory, whose bytes count toward the limit;
// a kept directory no entry names (a commit cut off between moving its backups in and
// writing its entry) is removed by the next record once it is stale, and a temporary
// entry file too; younger, they may be another commit's, recording meanwhile, and stay.
func TestKeptPrunedAndOrphansSwept(t *testing.T) {
	s := Open(afero.NewOsFs(), t.TempDir(), key, Limits{Entries: 1})
	keptEntry(t, s, "00000000000a")
	orphan := filepath.Join(s.entries(), KeptName("0000000000bb", 3))
	os.MkdirAll(orphan, 0o700)
	os.WriteFile(filepath.Join(orphan, "b0"), []byte("abc"), 0o600)
	young := filepath.Join(s.entries(), KeptName("0000000000dd", 3))
	os.MkdirAll(young, 0o700)
	tmp, youngTmp := filepath.Join(s.entries(), "x.entry.tmp-1"), filepath.Join(s.entries(), "y.entry.tmp-2")
	os.WriteFile(tmp, nil, 0o600)
	os.WriteFile(youngTmp, nil, 0o600)
	old := time.Now().Add(-2 * staleAfter)
	os.Chtimes(orphan, old, old)
	os.Chtimes(tmp, old, old)
	keptEntry(t, s, "00000000000c")
	names, _ := os.ReadDir(s.entries())
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
	}
	want := []string{KeptName("00000000000c", 7), KeptName("0000000000dd", 3), "0000000002-00000000000c.*.entry", "y.entry.tmp-2"} // as ReadDir sorts them
	if ok, _ := path.Match(want[2], got[min(2, len(got)-1)]); len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[3] != want[3] || !ok {
		t.Errorf("entries = %v, want %v", got, want)
	}
	list, _, _ := s.listing()
	if len(list) != 1 || list[0].kept == "" || list[0].size <= 7 {
		t.Errorf("listing = %+v, want the entry with its kept bytes counted", list)
	}
}

// U1: a sealed entry naming a kept file by a name that is not a backup's, or kept
// bytes it does not declare, is not trusted.
func TestKeptNamesChecked(t *testing.T) {
	for _, b := range []Blob{{File: "../b0"}, {File: "b0/x"}, {File: "journal.json"}, {File: "b0", Off: 3}, {File: "b0", Len: -1}} {
		e := &Entry{ID: "00000000000a", Seq: 1, Kept: 7, Blobs: []Blob{b}}
		if trusted(e, 100) {
			t.Errorf("an entry with the blob %+v is trusted", b)
		}
	}
	if trusted(&Entry{ID: "00000000000a", Seq: 1, Blobs: []Blob{{File: "b0", Len: 1}}}, 100) {
		t.Error("a kept blob in an entry that keeps nothing is trusted")
	}
	if !trusted(&Entry{ID: "00000000000a", Seq: 1, Kept: 7, Blobs: []Blob{{File: "b12", Len: 7}}}, 100) {
		t.Error("a sound kept blob is not trusted")
	}
}

// U1: a kept content read through an afero filesystem other than the operating
// system's is checked the same way: the length recorded, a regular file, or refused.
func TestReadKeptThroughAfero(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/kept/b0", []byte("before\n"), 0o644)
	fsys.MkdirAll("/kept/dir", 0o700)
	if b, err := readKept(fsys, "/kept/b0", 7); err != nil || string(b) != "before\n" {
		t.Fatalf("readKept = %q, %v", b, err)
	}
	for name, want := range map[string]int64{"/kept/b0": 8, "/kept/dir": 0, "/kept/gone": 7} {
		if b, err := readKept(fsys, name, want); err == nil {
			t.Errorf("readKept(%s, %d) = %q, want an error", name, want, b)
		}
	}
}

// F5, U1: a content the history has lost is reported without the names of the user's
// state directory, which a result a model reads must not disclose.
func TestLostContentNamesNoStatePath(t *testing.T) {
	dir := t.TempDir()
	s := Open(afero.NewOsFs(), dir, key, Limits{})
	keptEntry(t, s, "00000000000a")
	list, err := s.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	os.Remove(filepath.Join(s.entries(), KeptName("00000000000a", 7), "b0"))
	_, err = s.Content(&list[0], 0)
	if err == nil || strings.Contains(err.Error(), dir) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Content of a lost file: %v; want it told without %s, and fs.ErrNotExist", err, dir)
	}
}
