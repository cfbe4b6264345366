//go:build unix

package applypatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
)

// TestOwnerThatCannotBeKeptIsRefused: a process that runs as another user than a
// file's owner, without the right to change owners, cannot give the rewritten file its
// owner back, so the path is refused before any write with a ConflictOwner conflict saying why
// (T6). The process identity is replaced to play that user.
func TestOwnerThatCannotBeKeptIsRefused(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "theirs.txt")
	os.WriteFile(name, []byte("a\nb\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("a\nb\n"), 0o644)
	fi, _ := os.Stat(name)
	own := filestate.OwnerOf(fi)
	saved := filestate.ProcessIdentity
	t.Cleanup(func() { filestate.ProcessIdentity = saved })
	filestate.ProcessIdentity = func() filestate.Identity { return filestate.Identity{UID: own.UID + 1, GID: own.GID, Known: true} }
	if os.Geteuid() != 0 {
		t.Skip("giving mine.txt to the played user needs root")
	}
	os.Chown(filepath.Join(dir, "mine.txt"), own.UID+1, own.GID)
	payload := "*** Begin Patch\n*** Update File: mine.txt\n@@\n-b\n+B\n*** Update File: theirs.txt\n@@\n-b\n+B\n*** End Patch\n"
	_, err := Apply(context.Background(), afero.NewOsFs(), payload, &Options{Workspace: dir})
	var oe *ConflictError
	if !errors.As(err, &oe) || oe.Reason != ConflictOwner || len(oe.Paths) != 1 || oe.Paths[0] != "theirs.txt" ||
		!strings.Contains(err.Error(), "would change owner") || !strings.Contains(err.Error(), "the patch was not applied") {
		t.Fatalf("err = %v, want a ConflictOwner ConflictError for theirs.txt saying why", err)
	}
	for _, n := range []string{"mine.txt", "theirs.txt"} {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != "a\nb\n" {
			t.Errorf("%s written: %q", n, b)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, fence.JournalPrefix)); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}
