package applypatch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch"
)

// writerDuringTemp is an OsFs whose first write to a temporary file runs during, as
// another program's append to a file may: between the commit's last look at the file
// and its rename of the new bytes over it.
type writerDuringTemp struct {
	afero.OsFs
	once   sync.Once
	during func()
}

func (w *writerDuringTemp) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	f, err := w.OsFs.OpenFile(name, flag, perm)
	if err == nil && strings.Contains(filepath.Base(name), ".applypatch-") && flag&os.O_CREATE != 0 {
		w.once.Do(w.during)
	}
	return f, err
}

// TestCommitRechecksFileBeforeRename: X2, X5, X16. A file another program appends to
// while the commit writes its new bytes (a large one takes long enough to write that a
// writer slips in; a small one too, when the writer is quick) is not overwritten: the
// commit looks at the file once more just before the rename and refuses with a conflict,
// having written nothing, so the refusal is no incomplete rollback (exit 1, not 3).
func TestCommitRechecksFileBeforeRename(t *testing.T) {
	for name, lines := range map[string]int{"large": 40_000, "small": 100} {
		t.Run(name, func(t *testing.T) { recheckWith(t, lines) })
	}
}

func recheckWith(t *testing.T, lines int) {
	root := t.TempDir()
	big := strings.Repeat("line\n", lines)
	name := filepath.Join(root, "big.txt")
	if err := os.WriteFile(name, []byte("first\n"+big), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := &writerDuringTemp{during: func() {
		f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString("appended by another program\n")
		f.Close()
	}}
	pr := mustResolve(t, fsys, "*** Begin Patch\n*** Update File: big.txt\n@@\n-first\n+FIRST\n*** End Patch\n",
		&applypatch.Options{Workspace: root})
	_, err := applypatch.Commit(context.Background(), pr)
	if ce := (*applypatch.ConflictError)(nil); !errors.As(err, &ce) || ce.Reason != applypatch.ConflictChanged {
		t.Fatalf("Commit = %v, want a conflict: the file changed while the new bytes were written", err)
	}
	if errors.As(err, new(*applypatch.IncompleteRollbackError)) {
		t.Errorf("Commit = %v: a commit that wrote nothing is no incomplete rollback", err)
	}
	got, _ := os.ReadFile(name)
	if want := "first\n" + big + "appended by another program\n"; string(got) != want {
		t.Errorf("the file holds %d bytes starting %q, want the other program's append kept and the patch not applied", len(got), got[:10])
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 {
		t.Errorf("the workspace holds %d entries, want only big.txt: no temporary file or journal left", len(entries))
	}
}
