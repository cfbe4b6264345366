package applypatch_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// swapHook is a buffer hook that, when the commit asks about trigger just before its
// write, swaps the directory holding it for a copy, as a tool that replaces a directory
// atomically does.
type swapHook struct {
	t             *testing.T
	trigger, root string
	asked         int
	swapped       bool
}

func (h *swapHook) Unsaved(name string) bool {
	if name != h.trigger {
		return false
	}
	if h.asked++; h.asked == 2 && !h.swapped { // the first ask is the batch's, before any write
		h.swapped = true
		dir := filepath.Join(h.root, "d")
		if out, err := exec.Command("cp", "-a", dir, dir+".new").CombinedOutput(); err != nil {
			h.t.Fatalf("cp: %v\n%s", err, out)
		}
		if err := os.Rename(dir, dir+".old"); err != nil {
			h.t.Fatal(err)
		}
		if err := os.Rename(dir+".new", dir); err != nil {
			h.t.Fatal(err)
		}
	}
	return false
}

func (h *swapHook) Refresh(string) error { return nil }

// TestCommitDirectorySwappedMidway swaps the directory of two updated files for a copy
// between their writes, while the commit keeps the old directory open under its lock:
// the second file's path now leads to another file than the one read through the kept
// directory, so the commit stops with a conflict and rolls back, and nothing of the
// commit is left in either directory (PERF1, X2, F1).
func TestCommitDirectorySwappedMidway(t *testing.T) {
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("needs cp")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(root, "d", n), []byte("one\ntwo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // past the racy window: the checks go by metadata
	ws, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	hook := &swapHook{t: t, trigger: filepath.Join(root, "d", "a.txt"), root: root}
	payload := "*** Begin Patch\n*** Update File: d/a.txt\n@@\n-one\n+ONE\n two\n*** Update File: d/b.txt\n@@\n-one\n+ONE\n two\n*** End Patch\n"
	_, err = applypatch.Apply(context.Background(), afero.NewOsFs(), payload,
		&applypatch.Options{Workspace: root, WorkspaceFs: ws, Buffers: hook})
	if !hook.swapped {
		t.Fatal("the directory was never swapped")
	}
	var conflict *applypatch.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("Apply = %v, want a conflict", err)
	}
	for _, name := range []string{"d/a.txt", "d/b.txt", "d.old/a.txt", "d.old/b.txt"} {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != "one\ntwo\n" {
			t.Errorf("%s = %q, %v; want it as it was", name, b, err)
		}
	}
}
