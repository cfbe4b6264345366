package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// lockLines is a file of the lock tests; lockPatch changes its line n to "line n TAG".
func lockLines() string {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func lockPatch(tag string, n int) string {
	return fmt.Sprintf("*** Begin Patch\n*** Update File: f.txt\n@@\n line %d\n-line %d\n+line %d %s\n*** End Patch\n", n-1, n, n, tag)
}

// openRoot opens a rootfs.Fs over dir for one test.
func openRoot(t *testing.T, dir string) *rootfs.Fs {
	t.Helper()
	r, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestTwoRootFsValuesBothLand applies two compatible patches at once, 100 rounds,
// through two rootfs.Fs values over one directory: both succeed and both changes are on
// disk, since Apply takes the workspace lock before it reads (X10).
func TestTwoRootFsValuesBothLand(t *testing.T) {
	for round := range 100 {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f.txt"), []byte(lockLines()), 0o644)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, p := range []string{lockPatch("A", 3), lockPatch("B", 15)} {
			opts := &applypatch.Options{Workspace: dir, WorkspaceFs: openRoot(t, dir)}
			wg.Go(func() { _, errs[i] = applypatch.Apply(context.Background(), afero.NewOsFs(), p, opts) })
		}
		wg.Wait()
		b, _ := os.ReadFile(filepath.Join(dir, "f.txt"))
		if errs[0] != nil || errs[1] != nil || !strings.Contains(string(b), "line 3 A") || !strings.Contains(string(b), "line 15 B") {
			t.Fatalf("round %d: errors %v, file:\n%s", round, errs, b)
		}
	}
}

// TestReviewedProposalConflictsAfterConcurrentCommit: a proposal resolved for review,
// then a concurrent Apply of a compatible patch, then the proposal's commit: it reports
// a conflict and writes nothing, never overwriting the other change (X7, X10).
func TestReviewedProposalConflictsAfterConcurrentCommit(t *testing.T) {
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		afero.WriteFile(fsys, filepath.Join(root, "f.txt"), []byte(lockLines()), 0o644)
		opts := &applypatch.Options{Workspace: root}
		pr := mustResolve(t, fsys, lockPatch("A", 3), opts)
		if _, err := applypatch.Apply(context.Background(), fsys, lockPatch("B", 15), opts); err != nil {
			t.Fatal(err)
		}
		_, err := applypatch.Commit(context.Background(), pr)
		if !errors.Is(err, &applypatch.ConflictError{}) {
			t.Fatalf("commit after a concurrent change: %v, want a conflict", err)
		}
		b, _ := afero.ReadFile(fsys, filepath.Join(root, "f.txt"))
		if strings.Contains(string(b), "line 3 A") || !strings.Contains(string(b), "line 15 B") {
			t.Errorf("file after the conflict:\n%s", b)
		}
	})
}

// TestCommitWaitsForTheLockWithinItsContext: while another holder has the workspace
// locked, a commit waits, and gives up with a ConflictLocked conflict when its context ends, writing
// nothing; once the lock is free it applies (X10).
func TestCommitWaitsForTheLockWithinItsContext(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte(lockLines()), 0o644)
	holder := openRoot(t, dir)
	unlock, err := holder.LockWorkspace(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	opts := &applypatch.Options{Workspace: dir, WorkspaceFs: openRoot(t, dir)}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = applypatch.Apply(ctx, afero.NewOsFs(), lockPatch("A", 3), opts)
	if !errors.Is(err, &applypatch.ConflictError{Reason: applypatch.ConflictLocked}) ||
		!errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "nothing was applied") {
		t.Fatalf("apply while locked: %v, want a ConflictLocked conflict that gave up at the deadline", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != lockLines() {
		t.Fatalf("written while locked:\n%s", b)
	}
	unlock()
	if _, err := applypatch.Apply(context.Background(), afero.NewOsFs(), lockPatch("A", 3), opts); err != nil {
		t.Fatalf("apply once unlocked: %v", err)
	}
}
