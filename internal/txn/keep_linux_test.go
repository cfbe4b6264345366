//go:build linux

package txn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
)

// keptAt is the offer of a journal directory made at root/j, as the commit made it.
func keptAt(t *testing.T, root string) *Kept {
	t.Helper()
	dir := filepath.Join(root, "j")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b0"), []byte("baseline"), 0o600)
	made, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &Kept{fsys: afero.NewOsFs(), dir: dir, made: made}
}

// PERF5, X14: the journal directory moves to the history whole; whatever stands at its
// name that is not the directory the commit made (another directory, a symbolic link
// swapped in) is put back where it was found and nothing is taken.
func TestKeptMoveTo(t *testing.T) {
	for name, swap := range map[string]func(dir, elsewhere string){
		"":          nil,
		"directory": func(dir, _ string) { os.Mkdir(dir, 0o700) },
		"link":      func(dir, elsewhere string) { os.Symlink(elsewhere, dir) },
	} {
		root, store, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
		k := keptAt(t, root)
		if swap != nil {
			os.Rename(k.dir, k.dir+".moved")
			swap(k.dir, elsewhere)
		}
		to, err := os.Open(store)
		if err != nil {
			t.Fatal(err)
		}
		moved := k.MoveTo(to, "x.kept")
		to.Close()
		_, err = os.Lstat(filepath.Join(store, "x.kept"))
		switch {
		case swap == nil && (!moved || err != nil):
			t.Errorf("the journal directory was not moved: %v %v", moved, err)
		case swap == nil:
			if b, _ := os.ReadFile(filepath.Join(store, "x.kept", "b0")); string(b) != "baseline" {
				t.Errorf("the moved directory holds %q", b)
			}
		case moved || err == nil:
			t.Errorf("%s swapped in: taken (%v), or left in the store (%v)", name, moved, err)
		default:
			if _, err := os.Lstat(k.dir); err != nil {
				t.Errorf("%s swapped in was not put back: %v", name, err)
			}
		}
	}
}
