package history

import (
	"os"
	"path"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// draftPayload is a payload of many lines, as a large change's is.
var draftPayload = "*** Begin Patch\n" + strings.Repeat("+a line the change adds\n", 400) + "*** End Patch\n"

// recordedOnce checks that the store holds the one entry e recorded, with its contents
// (before, after and the payload) read back checked, and no other file: no draft, no
// temporary file.
func recordedOnce(t *testing.T, fsys afero.Fs, s *Store, e *Entry) Entry {
	t.Helper()
	list, err := s.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	got := list[0]
	if got.ID != e.ID || got.PayloadBlob != 2 || !reflect.DeepEqual(got.Files, e.Files) {
		t.Fatalf("listed %+v, recorded %+v", got, e)
	}
	for i, want := range []string{"one\n", "two\n", e.Payload} {
		if b, err := s.Content(&got, i); err != nil || string(b) != want {
			t.Fatalf("Content(%d) = %q, %v", i, b, err)
		}
	}
	names, _ := afero.ReadDir(fsys, s.entries())
	if len(names) != 1 || names[0].Name() != path.Base(got.file) {
		var all []string
		for _, fi := range names {
			all = append(all, fi.Name())
		}
		t.Fatalf("the store holds %q, want only the entry %s", all, path.Base(got.file))
	}
	return got
}

// U1: an entry finished from a draft is the entry Record writes whole: the same files,
// the same contents, checked, and nothing else left in the store.
func TestDraftFinishesTheEntry(t *testing.T) {
	var drafted Entry
	for _, draft := range []bool{false, true} {
		fsys := afero.NewMemMapFs()
		s := Open(fsys, "/h", key, Limits{})
		e, c := entry("00112233aabb", "one\n", "two\n")
		e.Payload = draftPayload
		var err error
		if draft {
			err = s.Begin(draftPayload).Record(e, c)
		} else {
			err = s.Record(e, c)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := recordedOnce(t, fsys, s, e); draft {
			drafted = got
		}
	}
	if drafted.Blobs[drafted.PayloadBlob].Off != 0 {
		t.Errorf("the draft's payload is at %d, want the file's first content", drafted.Blobs[drafted.PayloadBlob].Off)
	}
}

// U1: a draft Record cannot finish is never the entry: one whose file another
// recording took for a crash's and removed, one begun for another payload, and one
// that could not be written are each recorded whole, and leave nothing behind.
func TestDraftFallsBackToTheWholeEntry(t *testing.T) {
	for name, spoil := range map[string]func(afero.Fs, *Draft) *Draft{
		"file removed": func(fsys afero.Fs, d *Draft) *Draft { fsys.Remove(d.name); return d },
		"another payload": func(fsys afero.Fs, d *Draft) *Draft {
			d.Discard()
			return Open(fsys, "/h", key, Limits{}).Begin(draftPayload + "\n")
		},
		"write failed": func(fsys afero.Fs, d *Draft) *Draft {
			d.Discard()
			return Open(failingWrites{fsys}, "/h", key, Limits{}).Begin(draftPayload)
		},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := afero.NewMemMapFs()
			s := Open(fsys, "/h", key, Limits{})
			d := spoil(fsys, s.Begin(draftPayload))
			e, c := entry("00112233aabb", "one\n", "two\n")
			e.Payload = draftPayload
			if err := s.record(e, c, d); err != nil {
				t.Fatal(err)
			}
			recordedOnce(t, fsys, s, e)
		})
	}
}

// failingWrites is a filesystem whose files refuse every write: a full disk.
type failingWrites struct{ afero.Fs }

func (f failingWrites) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	file, err := f.Fs.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return refusingFile{file}, nil
}

type refusingFile struct{ afero.File }

func (refusingFile) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func (refusingFile) WriteString(string) (int, error) { return 0, syscall.ENOSPC }

// A draft that could not be written leaves no file, and Discard, which removes a draft
// no entry was recorded from, may be called again, and on no draft.
func TestDraftDiscard(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	if d := Open(failingWrites{fsys}, "/h", key, Limits{}).Begin(draftPayload); d.f != nil || d.name != "" {
		t.Errorf("a draft that could not be written kept its file %q", d.name)
	}
	d := s.Begin(draftPayload)
	if d.name == "" {
		t.Fatal("no draft was written")
	}
	d.Discard()
	d.Discard()
	(*Draft)(nil).Discard()
	if names, _ := afero.ReadDir(fsys, s.entries()); len(names) != 0 {
		t.Errorf("a discarded draft left %d files", len(names))
	}
}

// U1: a draft a crash left is a temporary entry file: another commit's recording leaves
// it while it may still be that commit's, and removes it once it is stale.
func TestDraftLeftByACrash(t *testing.T) {
	fsys := afero.NewMemMapFs()
	s := Open(fsys, "/h", key, Limits{})
	left := s.Begin(draftPayload).name // the process ends here
	e, c := entry("00112233aabb", "one\n", "two\n")
	if err := s.Record(e, c); err != nil {
		t.Fatal(err)
	}
	if ok, _ := afero.Exists(fsys, left); !ok {
		t.Fatal("a fresh draft, perhaps another commit's, was removed")
	}
	old := time.Now().Add(-2 * staleAfter)
	fsys.Chtimes(left, old, old)
	e2, c2 := entry("00112233aabc", "two\n", "three\n")
	if err := s.Record(e2, c2); err != nil {
		t.Fatal(err)
	}
	if ok, _ := afero.Exists(fsys, left); ok {
		t.Error("a stale draft was left in the store")
	}
}
