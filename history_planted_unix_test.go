//go:build unix

package applypatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// U1, X11: what is planted in a user history's directory never carries a commit's writes
// outside the state directory, and never blocks it: a link at the name of the file that
// says whose history it is, a link in place of the entries' directory (where a commit
// moves its kept baselines) or of the undone marks' directory (whose marks pruning
// removes), a file in place of the latter, and a FIFO as another history's workspace
// file, which a commit's sweep reads. The change is applied and recorded each time.
func TestUserHistoryPlantedNeverLeadsOut(t *testing.T) {
	state, outside := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	canary := filepath.Join(outside, "canary")
	os.WriteFile(canary, []byte("precious"), 0o644)
	ws := t.TempDir()
	h, err := UserHistory(ws)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(h.dir, 0o700)
	os.Symlink(filepath.Join(outside, "made-by-a-link"), filepath.Join(h.dir, workspaceFile))
	os.Symlink(outside, filepath.Join(h.dir, "entries"))
	os.WriteFile(filepath.Join(h.dir, "undone"), []byte("planted"), 0o600)
	other := filepath.Join(filepath.Dir(h.dir), strings.Repeat("0", 32))
	os.MkdirAll(other, 0o700)
	if err := syscall.Mkfifo(filepath.Join(other, workspaceFile), 0o600); err != nil {
		t.Fatal(err)
	}

	done := make(chan *Result, 1)
	go func() {
		res, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Add File: f.txt\n+f"), &Options{Workspace: ws, History: h})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		if res != nil && strings.Contains(res.Text(), "History not recorded") {
			t.Errorf("the commit was not recorded: %s", res.Text())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the commit blocked on a FIFO planted in the state directory")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Errorf("the directory outside holds %d entries, want the canary alone", len(entries))
	}
	if b, _ := os.ReadFile(canary); string(b) != "precious" {
		t.Errorf("canary = %q", b)
	}
	for _, name := range []string{workspaceFile, "entries", "undone"} {
		if fi, err := os.Lstat(filepath.Join(h.dir, name)); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s: %v, %v; want the store's own in the planted one's place", name, fi, err)
		}
	}
	if list, err := h.Entries(); err != nil || len(list) != 1 {
		t.Errorf("Entries = %v, %v; want the commit", list, err)
	}
}
