package history

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
)

// U2, PERF5: RemoveSpent empties the spent directory and removes it, so a later commit
// finds none to look into; a link in its place is neither followed nor removed.
func TestRemoveSpent(t *testing.T) {
	fsys, dir := afero.NewOsFs(), t.TempDir()
	for _, n := range []string{"0123456789ab", "ba9876543210"} {
		if err := os.MkdirAll(filepath.Join(dir, "spent", n), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "spent", n, "b0"), []byte("old\n"), 0o600)
	}
	if !HasSpent(fsys, dir) {
		t.Fatal("HasSpent = false with two spent journals")
	}
	RemoveSpent(fsys, dir)
	if HasSpent(fsys, dir) {
		t.Error("the spent directory is kept once emptied")
	}
	elsewhere, linked := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(elsewhere, "keep"), 0o700)
	if err := os.Symlink(elsewhere, filepath.Join(linked, "spent")); err != nil {
		t.Fatal(err)
	}
	RemoveSpent(fsys, linked)
	if _, err := os.Stat(filepath.Join(elsewhere, "keep")); err != nil {
		t.Errorf("a directory behind a link in the spent directory's place was removed: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(linked, "spent")); err != nil {
		t.Errorf("the link in the spent directory's place was removed: %v", err)
	}
}
