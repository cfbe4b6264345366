package applypatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/internal/linktree"
	"github.com/spf13/afero"
)

// TestDeleteLinkRollsBack checks that a Delete of a symbolic link removes the link (F1)
// and that rollback puts the link back as a link, pointing where it did, when a later
// step fails (X5); a dangling link is deleted like any other.
func TestDeleteLinkRollsBack(t *testing.T) {
	base := linktree.Build(t, "ws/target.txt", "ws/b.txt", "ws/link -> target.txt", "ws/dangling -> nowhere.txt")
	ws := filepath.Join(base, "ws")
	failB := faultfs.New(afero.NewOsFs(), faultfs.FailEvery(func(op faultfs.Op, name string) bool {
		return op == faultfs.OpRename && strings.Contains(name, "/ws/.b.txt")
	}))
	p := payload("*** Delete File: link", "*** Delete File: dangling", "*** Update File: b.txt", "@@", "-ws/b.txt", "+B")
	if _, err := Apply(context.Background(), failB, p, &Options{Workspace: ws}); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("Apply = %v, want the injected fault", err)
	}
	for name, want := range map[string]string{"link": "target.txt", "dangling": "nowhere.txt"} {
		if got, err := os.Readlink(filepath.Join(ws, name)); err != nil || got != want {
			t.Errorf("after rollback %s -> %q (%v), want a link to %q", name, got, err, want)
		}
	}
	if _, err := Apply(context.Background(), afero.NewOsFs(), p, &Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"link", "dangling"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there after its Delete: %v", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "target.txt")); err != nil || string(b) != "ws/target.txt" {
		t.Errorf("target.txt = %q, %v; want it kept", b, err)
	}
}

// TestDeleteLinkRetargetedConflicts checks that a link pointed elsewhere between Resolve
// and Commit is a conflict, not removed.
func TestDeleteLinkRetargetedConflicts(t *testing.T) {
	base := linktree.Build(t, "ws/a.txt", "ws/c.txt", "ws/link -> a.txt")
	ws := filepath.Join(base, "ws")
	pr, err := Resolve(context.Background(), afero.NewOsFs(), mustParse(t, payload("*** Delete File: link")), &Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	l := filepath.Join(ws, "link")
	if err := os.Remove(l); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("c.txt", l); err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(context.Background(), pr); !errors.Is(err, &ConflictError{}) {
		t.Fatalf("Commit = %v, want a conflict", err)
	}
	if got, _ := os.Readlink(l); got != "c.txt" {
		t.Errorf("link -> %q, want it left pointing at c.txt", got)
	}
}
