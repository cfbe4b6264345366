package applypatch_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// TestCommitModes: an Update keeps the file's mode, a Move the source's, and an Add gets
// Options.FileMode exactly, whatever the umask (T6).
func TestCommitModes(t *testing.T) {
	const payload = `*** Begin Patch
*** Add File: added.txt
+new
*** Add File: sub/added.sh
+#!/bin/sh
*** Update File: c.txt
@@
-c2
+C2
*** Update File: b.txt
*** Move to: dir/moved.txt
@@
-b2
+B2
*** End Patch
`
	for _, mode := range []fs.FileMode{0, 0o664, 0o600} {
		onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
			writeFixture(t, fsys, root, abcFiles)
			pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: root, FileMode: mode})
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatal(err)
			}
			add := mode
			if add == 0 {
				add = 0o644
			}
			after := readTree(t, fsys, root)
			got := map[string]fs.FileMode{}
			for _, name := range []string{"added.txt", "sub/added.sh", "c.txt", "dir/moved.txt"} {
				got[name] = after[name].mode
			}
			want := map[string]fs.FileMode{"added.txt": add, "sub/added.sh": add, "c.txt": 0o755, "dir/moved.txt": 0o600}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("FileMode %v: modes (-want +got):\n%s", mode, diff)
			}
		})
	}
}

// TestCommitReplacesAtomically: a target is never opened for writing; it is replaced by
// renaming a temporary file from its own directory, whose mode is set first, and with
// Options.Sync the file is synced before the rename and the directory after (X4).
func TestCommitReplacesAtomically(t *testing.T) {
	for _, sync := range []bool{false, true} {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, abcFiles)
			fsys := faultfs.New(base)
			pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root, Sync: sync})
			if _, err := applypatch.Commit(context.Background(), pr); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range fsys.Events() {
				if filepath.Base(e.Name) == "a.txt" || strings.HasPrefix(filepath.Base(e.Name), ".a.txt.") {
					rel, _ := filepath.Rel(root, e.Name)
					if strings.HasPrefix(rel, ".a.txt.applypatch-") {
						rel = "TEMP"
					}
					got = append(got, string(e.Op)+" "+rel)
				}
			}
			want := []string{"create TEMP", "write TEMP", "close TEMP", "chmod TEMP", "rename TEMP"}
			if sync {
				want = []string{"create TEMP", "write TEMP", "sync TEMP", "close TEMP", "chmod TEMP", "rename TEMP"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("sync=%v: operations on a.txt (-want +got):\n%s", sync, diff)
			}
			dirSyncs := 0
			for _, e := range fsys.Events() {
				if e.Op == faultfs.OpSync && e.Name == root {
					dirSyncs++
				}
			}
			// One sync makes the commit journal's directory entry durable (X11); with
			// Options.Sync each rename is synced as well.
			if want := map[bool]int{false: 1, true: 4}[sync]; dirSyncs != want {
				t.Errorf("sync=%v: %d directory syncs, want %d", sync, dirSyncs, want)
			}
		})
	}
}

// TestCommitRenameImpossible: where rename cannot work (EXDEV, EPERM) the file is
// rewritten in place and the commit still succeeds with the right bytes and modes, and
// no temporary file left (X4).
func TestCommitRenameImpossible(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EXDEV, syscall.EPERM} {
		onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
			writeFixture(t, base, root, matrixFiles)
			if err := commitThrough(t, noRenameFs{base, errno}, root, false); err != nil {
				t.Fatalf("%v: %v", errno, err)
			}
			checkApplied(t, errno.Error(), base, root)
			for name := range readTree(t, base, root) {
				if strings.Contains(name, ".applypatch-") {
					t.Errorf("%v: temporary file %s left", errno, name)
				}
			}
		})
	}
}

// TestCommitCopyOnWriteBaseDelete: afero's CopyOnWriteFs cannot remove a file of its
// base layer (with a MemMapFs layer it says "file does not exist"); the Delete fails and
// everything already written is rolled back, so the union view is at its baseline (X5).
func TestCommitCopyOnWriteBaseDelete(t *testing.T) {
	base, layer := afero.NewMemMapFs(), afero.NewMemMapFs()
	writeFixture(t, base, "/ws", abcFiles)
	if err := layer.MkdirAll("/ws", 0o755); err != nil {
		t.Fatal(err)
	}
	fsys := afero.NewCopyOnWriteFs(afero.NewReadOnlyFs(base), layer)
	before := readTree(t, fsys, "/ws")
	const payload = `*** Begin Patch
*** Add File: new/added.txt
+new
*** Update File: a.txt
@@
-a2
+A2
*** Delete File: b.txt
*** End Patch
`
	pr := mustResolve(t, fsys, payload, &applypatch.Options{Workspace: "/ws"})
	_, err := applypatch.Commit(context.Background(), pr)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "b.txt" || errors.As(err, new(*applypatch.IncompleteRollbackError)) {
		t.Fatalf("err = %v, want the refused remove of b.txt after a complete rollback", err)
	}
	if diff := treeDiff(before, readTree(t, fsys, "/ws")); len(diff) > 0 {
		t.Errorf("not rolled back: %v", diff)
	}
}

// TestCommitCancelled: a context cancelled while the commit runs stops it before the
// next write and rolls back (X5).
func TestCommitCancelled(t *testing.T) {
	onEachFs(t, func(t *testing.T, base afero.Fs, root string) {
		writeFixture(t, base, root, abcFiles)
		before := readTree(t, base, root)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fsys := hookFs{base, afterWriteOf("b.txt", cancel)}
		pr := mustResolve(t, fsys, abcPayload, &applypatch.Options{Workspace: root})
		if _, err := applypatch.Commit(ctx, pr); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if diff := treeDiff(before, readTree(t, base, root)); len(diff) > 0 {
			t.Errorf("not rolled back: %v", diff)
		}
	})
}

// TestCommitLongName: a target whose name is near the filesystem's limit of 255 bytes
// still gets a temporary file beside it, so it can be added, updated and moved.
func TestCommitLongName(t *testing.T) {
	long := strings.Repeat("n", 240) + ".txt"
	moved := strings.Repeat("é", 120) + ".txt" // 244 bytes, cut at a character boundary
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		payload := "*** Begin Patch\n*** Add File: " + long + "\n+one\n*** End Patch\n"
		if _, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: root}); err != nil {
			t.Fatal(err)
		}
		payload = "*** Begin Patch\n*** Update File: " + long + "\n*** Move to: " + moved + "\n@@\n-one\n+two\n*** End Patch\n"
		if _, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: root}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(fsTree{moved: {mode: 0o644, data: "two\n"}}, readTree(t, fsys, root), cmp.AllowUnexported(treeEntry{})); diff != "" {
			t.Errorf("tree (-want +got):\n%s", diff)
		}
	})
}
