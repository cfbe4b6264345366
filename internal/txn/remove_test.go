package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
)

// TestRemoveJournalDir removes a journal of many backups, which two goroutines share
// (PERF5): every file and the directory go, and a name that cannot be removed (here a
// directory with a file in it) is reported.
func TestRemoveJournalDir(t *testing.T) {
	twoProcs(t)
	for _, stuck := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "j")
		os.Mkdir(dir, 0o700)
		for i := range 3 * removeSplitMin {
			os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte("baseline"), 0o600)
		}
		if stuck {
			os.MkdirAll(filepath.Join(dir, "stuck", "x"), 0o700)
		}
		err := removeJournalDir(afero.NewOsFs(), dir)
		entries, _ := os.ReadDir(dir)
		switch {
		case !stuck && (err != nil || entries != nil):
			t.Errorf("removeJournalDir = %v, leaving %d entries", err, len(entries))
		case !stuck:
			if _, serr := os.Lstat(dir); !os.IsNotExist(serr) {
				t.Errorf("the journal directory is left: %v", serr)
			}
		case err == nil:
			t.Error("a name that cannot be removed is not reported")
		}
	}
}
