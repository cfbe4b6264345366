package history

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"testing"

	"github.com/spf13/afero"
)

// countingFs is the operating system's filesystem whose directories count the looks at
// their entries' infos, which a listing by names alone does not take.
type countingFs struct {
	afero.Fs
	infos *int
}

func (c countingFs) Open(name string) (afero.File, error) {
	return c.OpenFile(name, os.O_RDONLY, 0)
}

func (c countingFs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := c.Fs.OpenFile(name, flag, perm)
	if err != nil || flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return f, err
	}
	return countingDir{f.(*os.File), c.infos}, nil
}

type countingDir struct {
	*os.File
	infos *int
}

func (d countingDir) ReadDir(n int) ([]fs.DirEntry, error) {
	list, err := d.File.ReadDir(n)
	for i := range list {
		list[i] = countingEntry{list[i], d.infos}
	}
	return list, err
}

func (d countingDir) Readdir(n int) ([]os.FileInfo, error) {
	list, err := d.File.Readdir(n)
	*d.infos += len(list)
	return list, err
}

type countingEntry struct {
	fs.DirEntry
	infos *int
}

func (e countingEntry) Info() (fs.FileInfo, error) {
	*e.infos++
	return e.DirEntry.Info()
}

// U1, PERF5: an entry's file is named with its size, so the listing each commit makes
// to prune the history counts its bytes without a look at each file; a file named as
// before sizes were (no size in its name) is still listed, its size looked up, and
// counted as it is.
func TestListingLooksAtNoEntry(t *testing.T) {
	infos := 0
	s := Open(countingFs{afero.NewOsFs(), &infos}, t.TempDir(), key, Limits{})
	for i := range 5 {
		e, c := entry(fmt.Sprintf("%012x", i+1), "a\n", "b\n")
		if err := s.Record(e, c); err != nil {
			t.Fatal(err)
		}
	}
	infos = 0
	list, _, err := s.listing()
	if err != nil || len(list) != 5 {
		t.Fatalf("listing = %d entries, %v", len(list), err)
	}
	if infos != 0 {
		t.Errorf("the listing looked at %d entries' infos, want none", infos)
	}
	fi, err := os.Stat(list[0].file)
	if err != nil || list[0].size != fi.Size() {
		t.Fatalf("entry 1 counted as %d bytes, its file has %v (%v)", list[0].size, fi, err)
	}
	legacy := path.Join(s.entries(), fmt.Sprintf("%010d-%s.entry", list[0].Seq, list[0].ID))
	if err := os.Rename(list[0].file, legacy); err != nil {
		t.Fatal(err)
	}
	infos = 0
	list, _, err = s.listing()
	if err != nil || len(list) != 5 || list[0].file != legacy || list[0].size != fi.Size() || infos != 1 {
		t.Errorf("with entry 1 named without its size: %d entries, the first %s of %d bytes, %d looks (%v); want 5, %s of %d, 1 look",
			len(list), list[0].file, list[0].size, infos, err, legacy, fi.Size())
	}
	if e, err := s.readEntry(list[0]); err != nil || e.ID != list[0].ID {
		t.Errorf("the entry named without its size does not read: %+v", e)
	}
}
