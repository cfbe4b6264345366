package rootfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spf13/afero"
)

// batchedEnv, when set, makes every test's Fs work inside a batch.
const batchedEnv = "ROOTFS_TEST_BATCHED"

// TestBatchedSuite runs every other test of the package again with its Fs inside a
// batch: kept directories must change no result, no error and no escape check.
func TestBatchedSuite(t *testing.T) {
	if os.Getenv(batchedEnv) != "" {
		t.Skip("already batched")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^Test", "-test.skip=^TestBatchedSuite$", "-test.count=1")
	cmd.Env = append(os.Environ(), batchedEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the tests fail inside a batch: %v\n%s", err, out)
	}
}

// batchEnv is an environment with a batch open and sub/ kept: a file was written in it.
func batchEnv(t *testing.T) env {
	t.Helper()
	e := newEnv(t)
	t.Cleanup(e.fsys.Batch())
	if err := e.fsys.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(e.fsys, "sub/first.txt", []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestBatchDirectoryMovedOutAndLinked moves a kept directory out of the root and puts a
// link to its new place where it was: a write through the old name is an escape, and
// nothing lands in the moved directory.
func TestBatchDirectoryMovedOutAndLinked(t *testing.T) {
	e := batchEnv(t)
	moved := filepath.Join(e.outside, "sub")
	if err := os.Rename(e.host("sub"), moved); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, moved, e.host("sub"))
	err := afero.WriteFile(e.fsys, "sub/second.txt", []byte("2"), 0o644)
	wantEscape(t, "WriteFile sub/second.txt after the move", err)
	if _, err := os.Lstat(filepath.Join(moved, "second.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write landed in the directory moved out of the root (%v)", err)
	}
	if _, err := e.fsys.Stat("sub/first.txt"); !IsEscape(err) {
		t.Errorf("Stat(sub/first.txt) after the move = %v, want an escape", err)
	}
}

// TestBatchDirectoryMovedOut moves a kept directory out of the root: its name no longer
// exists, and the kept descriptor is not used.
func TestBatchDirectoryMovedOut(t *testing.T) {
	e := batchEnv(t)
	moved := filepath.Join(e.outside, "sub")
	if err := os.Rename(e.host("sub"), moved); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"create": func() error { return afero.WriteFile(e.fsys, "sub/second.txt", []byte("2"), 0o644) },
		"rename": func() error { return e.fsys.Rename("sub/first.txt", "sub/third.txt") },
		"chmod":  func() error { return e.fsys.Chmod("sub/first.txt", 0o600) },
		"remove": func() error { return e.fsys.Remove("sub/first.txt") },
		"mkdir":  func() error { return e.fsys.Mkdir("sub/d", 0o755) },
	} {
		if err := op(); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s in the moved directory = %v, want ErrNotExist", name, err)
		}
	}
	entries, err := os.ReadDir(moved)
	if err != nil || len(entries) != 1 {
		t.Errorf("the moved directory holds %v (%v), want only first.txt", entries, err)
	}
	if fi, err := os.Stat(filepath.Join(moved, "first.txt")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("first.txt in the moved directory = %v, %v; want it untouched", fi, err)
	}
}

// TestBatchDirectoryReplaced renames a kept directory away inside the root and makes a
// new one under its name: names lead to the new directory, as outside a batch.
func TestBatchDirectoryReplaced(t *testing.T) {
	e := batchEnv(t)
	if err := os.Rename(e.host("sub"), e.host("old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.host("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(e.fsys, "sub/second.txt", []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.fsys.Rename("sub/second.txt", "sub/third.txt"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(e.host("sub/third.txt")); err != nil || string(b) != "2" {
		t.Errorf("sub/third.txt = %q, %v; want the write in the new directory", b, err)
	}
	for _, name := range []string{"old/second.txt", "old/third.txt"} {
		if _, err := os.Lstat(e.host(name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists: the write went to the renamed directory", name)
		}
	}
}

// TestBatchLinkInsideRoot follows a final symbolic link that leads above its directory
// but stays in the root, as the root does outside a batch.
func TestBatchLinkInsideRoot(t *testing.T) {
	e := batchEnv(t)
	if err := os.WriteFile(e.host("top.txt"), []byte("top"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join("..", "top.txt"), e.host("sub/link"))
	if b, err := afero.ReadFile(e.fsys, "sub/link"); err != nil || string(b) != "top" {
		t.Errorf("ReadFile(sub/link) = %q, %v; want top.txt's content", b, err)
	}
	if fi, err := e.fsys.Stat("sub/link"); err != nil || fi.Size() != 3 {
		t.Errorf("Stat(sub/link) = %v, %v; want top.txt", fi, err)
	}
	mustSymlink(t, filepath.Join("..", "..", "outside", "secret.txt"), e.host("sub/out"))
	_, err := e.fsys.Open("sub/out")
	wantEscape(t, "Open(sub/out)", err)
}

// TestBatchEndClosesAndNests checks that batches nest, that the kept directories are
// closed when the last ends, and that the Fs works as before afterwards.
func TestBatchEndClosesAndNests(t *testing.T) {
	e := newEnv(t)
	fsys, err := Open(e.ws) // an Fs of its own, outside any batch the suite opens
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	e.fsys = fsys
	outer := e.fsys.Batch()
	inner := e.fsys.Batch()
	if err := e.fsys.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(e.fsys, "a/b/f.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	inner()
	inner() // ending twice ends once
	e.fsys.kept.mu.Lock()
	kept := len(e.fsys.kept.dirs)
	e.fsys.kept.mu.Unlock()
	if kept == 0 {
		t.Error("the outer batch lost its directories when the inner one ended")
	}
	outer()
	if e.fsys.kept.dirs != nil || e.fsys.kept.depth.Load() != 0 {
		t.Errorf("after the last batch: %d directories kept, depth %d", len(e.fsys.kept.dirs), e.fsys.kept.depth.Load())
	}
	if b, err := afero.ReadFile(e.fsys, "a/b/f.txt"); err != nil || string(b) != "x" {
		t.Errorf("ReadFile after the batch = %q, %v", b, err)
	}
}

// TestBatchHeldSwapNotFollowed holds the root's workspace lock, so kept directories are
// used without a check before each use, and swaps a kept directory for a symbolic link to
// a directory outside the root: a write through the old name still lands in the
// directory that was kept (renamed inside the root), never through the link (PERF1, F1).
func TestBatchHeldSwapNotFollowed(t *testing.T) {
	e := newEnv(t)
	fsys, unlock := heldBatch(t, e)
	if err := fsys.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "sub/first.txt", []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(e.host("sub"), e.host("old")); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, e.outside, e.host("sub"))
	if err := afero.WriteFile(fsys, "sub/second.txt", []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(e.outside, "second.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write followed the link out of the root (%v)", err)
	}
	if b, err := os.ReadFile(e.host("old/second.txt")); err != nil || string(b) != "2" {
		t.Errorf("old/second.txt = %q, %v; want the write in the kept directory", b, err)
	}
	// A rename between two kept directories goes through both descriptors too.
	if err := fsys.Rename("sub/second.txt", "moved.txt"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(e.host("moved.txt")); err != nil || string(b) != "2" {
		t.Errorf("moved.txt = %q, %v; want old/second.txt renamed", b, err)
	}
	if entries, _ := os.ReadDir(e.outside); len(entries) != 1 {
		t.Errorf("the directory outside holds %d entries, want only secret.txt", len(entries))
	}
	unlock()
	// Without the lock, each use checks the directory again: the name now leads through
	// a link out of the root, which is refused.
	err := afero.WriteFile(fsys, "sub/third.txt", []byte("3"), 0o644)
	wantEscape(t, "WriteFile sub/third.txt after the lock is let go", err)
}

// TestBatchHeldAbsentDirectory holds the root's workspace lock and asks for files below a
// directory that does not exist: the directory is looked up once, then remembered absent
// for the next file (a planted directory made meanwhile by another program is not seen,
// as no commit makes one while it holds the lock), and forgotten as soon as the Fs makes
// a name itself, so its own directory is found at once (PERF5).
func TestBatchHeldAbsentDirectory(t *testing.T) {
	e := newEnv(t)
	fsys, unlock := heldBatch(t, e)
	if _, err := fsys.Open("new/a.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open new/a.txt = %v, want it absent", err)
	}
	if err := os.MkdirAll(e.host("new"), 0o755); err != nil { // past the Fs, ignoring the lock
		t.Fatal(err)
	}
	os.WriteFile(e.host("new/b.txt"), []byte("theirs"), 0o644)
	if _, err := fsys.Open("new/b.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open new/b.txt = %v, want the directory remembered absent under the lock", err)
	}
	if err := fsys.MkdirAll("other", 0o755); err != nil { // the Fs makes a name: forget
		t.Fatal(err)
	}
	if b, err := afero.ReadFile(fsys, "new/b.txt"); err != nil || string(b) != "theirs" {
		t.Errorf("new/b.txt = %q, %v after the Fs made a directory; want it found", b, err)
	}
	if err := afero.WriteFile(fsys, "made/c.txt", nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("WriteFile made/c.txt = %v, want its directory absent", err)
	}
	if err := fsys.Mkdir("made", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "made/c.txt", []byte("c"), 0o644); err != nil {
		t.Errorf("WriteFile made/c.txt after Mkdir made: %v", err)
	}
	unlock()
	if _, err := fsys.Open("gone/x.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	os.MkdirAll(e.host("gone"), 0o755)
	os.WriteFile(e.host("gone/x.txt"), nil, 0o644)
	if _, err := fsys.Open("gone/x.txt"); err != nil {
		t.Errorf("without the lock, a directory made meanwhile is found: %v", err)
	}
}

// heldBatch opens e's workspace, takes the workspace lock of its whole root and starts a
// batch, as a commit works; all three end with the test, or the lock earlier by unlock.
func heldBatch(t *testing.T, e env) (fsys *Fs, unlock func()) {
	t.Helper()
	fsys, err := Open(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err = fsys.LockWorkspace(context.Background(), "/")
	if err != nil {
		fsys.Close()
		t.Fatal(err)
	}
	end := fsys.Batch()
	t.Cleanup(func() {
		end()
		unlock()
		fsys.Close()
	})
	return fsys, unlock
}

// TestBatchHeldDirectoryRemovedAndMadeAgain holds the root's workspace lock while the Fs
// itself removes a kept directory (as recovery removes the directories an interrupted
// commit made, and an undo those its change made) or renames one, and makes one of that
// name again: the files written next land in the new directory, not in the removed one
// through its old descriptor, which has nowhere to put them (X11, U2).
func TestBatchHeldDirectoryRemovedAndMadeAgain(t *testing.T) {
	e := newEnv(t)
	fsys, _ := heldBatch(t, e)
	for _, step := range []struct {
		dir  string
		gone func(dir string) error
	}{
		{"removed", func(dir string) error {
			if err := fsys.Remove(dir + "/a.txt"); err != nil {
				return err
			}
			return fsys.Remove(dir)
		}},
		{"renamed", func(dir string) error { return fsys.Rename(dir, dir+"-away") }},
		{"removedAll", func(dir string) error { return fsys.RemoveAll(dir) }},
	} {
		if err := fsys.MkdirAll(step.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, step.dir+"/a.txt", []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := step.gone(step.dir); err != nil {
			t.Fatalf("%s: %v", step.dir, err)
		}
		if err := fsys.Mkdir(step.dir, 0o755); err != nil {
			t.Fatalf("%s: Mkdir again: %v", step.dir, err)
		}
		if err := afero.WriteFile(fsys, step.dir+"/b.txt", []byte("b"), 0o644); err != nil {
			t.Errorf("%s: WriteFile b.txt in the directory made again: %v", step.dir, err)
		}
		if b, err := os.ReadFile(e.host(step.dir + "/b.txt")); err != nil || string(b) != "b" {
			t.Errorf("%s: b.txt = %q, %v; want it in the new directory", step.dir, b, err)
		}
	}
}
