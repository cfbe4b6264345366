package applypatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
)

// U1: a user history lives under the state directory, outside the workspace; a workspace
// deleted and made again (as another directory: a filesystem may give a new directory the
// inode of one just removed, and then it is the same identity) has no history, and the
// history of the one that is gone is swept, so deleted trees leave no bytes behind.
func TestUserHistorySweepsGoneWorkspaces(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	ws := filepath.Join(t.TempDir(), "ws")
	apply := func() *History {
		t.Helper()
		h, err := UserHistory(ws)
		if err != nil {
			t.Fatal(err)
		}
		opts := &Options{Workspace: ws, History: h}
		if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Add File: a.txt\n+a"), opts); err != nil {
			t.Fatal(err)
		}
		return h
	}
	os.Mkdir(ws, 0o755)
	first := apply()
	if list, err := first.Entries(); err != nil || len(list) != 1 {
		t.Fatalf("Entries = %v, %v", list, err)
	}
	if names, _ := os.ReadDir(ws); len(names) != 1 {
		t.Errorf("the workspace holds %v: the history must live outside it", names)
	}
	os.Mkdir(ws+".new", 0o755) // made while the old one exists, so never its inode
	os.RemoveAll(ws)
	os.Rename(ws+".new", ws)
	second := apply()
	if list, _ := second.Entries(); len(list) != 1 {
		t.Errorf("the new workspace has %d entries, want its own one", len(list))
	}
	if _, err := os.Stat(first.dir); !os.IsNotExist(err) {
		t.Errorf("the history of the workspace that is gone is kept: %v", err)
	}
	if dirs, _ := os.ReadDir(filepath.Join(state, "applypatch", "history")); len(dirs) != 1 {
		t.Errorf("the state directory holds %d histories, want 1", len(dirs))
	}
}
