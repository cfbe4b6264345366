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

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestConcurrentCommits commits independent proposals from many goroutines on one
// filesystem: the per-filesystem lock serialises them (afero's MemMapFs crashes on a
// concurrent write and rename of one path), every commit applies, and no file is torn.
// Run with -race.
func TestConcurrentCommits(t *testing.T) {
	const workers = 8
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		files := map[string]fixtureFile{}
		for i := range workers {
			files[fmt.Sprintf("w%d/file.txt", i)] = fixtureFile{"one\ntwo\n", 0o644}
		}
		writeFixture(t, fsys, root, files)
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for i := range workers {
			wg.Go(func() {
				payload := fmt.Sprintf(`*** Begin Patch
*** Update File: w%[1]d/file.txt
@@
-two
+TWO %[1]d
*** Add File: w%[1]d/new/added.txt
+added by %[1]d
*** End Patch
`, i)
				// Each goroutine uses its own OsFs value: they share one lock too.
				fs := fsys
				if _, ok := fsys.(*afero.OsFs); ok {
					fs = afero.NewOsFs()
				}
				_, errs[i] = applypatch.Apply(context.Background(), fs, payload, &applypatch.Options{Workspace: root})
			})
		}
		wg.Wait()
		after := readTree(t, fsys, root)
		for i, err := range errs {
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
			if got, want := after[fmt.Sprintf("w%d/file.txt", i)].data, fmt.Sprintf("one\nTWO %d\n", i); got != want {
				t.Errorf("worker %d: file = %q, want %q", i, got, want)
			}
			if got, want := after[fmt.Sprintf("w%d/new/added.txt", i)].data, fmt.Sprintf("added by %d\n", i); got != want {
				t.Errorf("worker %d: added = %q, want %q", i, got, want)
			}
		}
	})
}

// TestConcurrentCommitsOfOnePath races proposals resolved from one baseline of one
// file: exactly one applies; every other sees a conflict and writes nothing (X2).
func TestConcurrentCommitsOfOnePath(t *testing.T) {
	const workers = 8
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, map[string]fixtureFile{"shared.txt": {"one\ntwo\n", 0o644}})
		proposals := make([]*applypatch.Proposal, workers)
		for i := range proposals {
			proposals[i] = mustResolve(t, fsys, fmt.Sprintf(`*** Begin Patch
*** Update File: shared.txt
@@
-two
+by %d
*** End Patch
`, i), &applypatch.Options{Workspace: root})
		}
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for i, pr := range proposals {
			wg.Go(func() { _, errs[i] = applypatch.Commit(context.Background(), pr) })
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Errorf("workers %d and %d both applied", winner, i)
			case !errors.Is(err, &applypatch.ConflictError{}):
				t.Errorf("worker %d: err = %v, want a conflict", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no worker applied")
		}
		after := readTree(t, fsys, root)
		if got, want := after["shared.txt"].data, fmt.Sprintf("one\nby %d\n", winner); got != want {
			t.Errorf("shared.txt = %q, want the winner's %q", got, want)
		}
		if len(after) != 1 {
			t.Errorf("tree = %v, want shared.txt only (no temporary files)", after)
		}
	})
}

// BenchmarkCommitSync measures Commit of four updated files with and without
// Options.Sync on the OS filesystem: the cost of durability, for the documentation of
// Options.Sync.
func BenchmarkCommitSync(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) {
			fsys, root := afero.NewOsFs(), b.TempDir()
			files := map[string]fixtureFile{}
			for i := range 4 {
				files[fmt.Sprintf("f%d.txt", i)] = fixtureFile{"state\nA\n", 0o644}
			}
			writeFixture(b, fsys, root, files)
			payload := func(from, to string) string {
				s := "*** Begin Patch\n"
				for i := range 4 {
					s += fmt.Sprintf("*** Update File: %s\n@@\n state\n-%s\n+%s\n", filepath.Join(root, fmt.Sprintf("f%d.txt", i)), from, to)
				}
				return s + "*** End Patch\n"
			}
			flip := []string{payload("A", "B"), payload("B", "A")}
			opts := &applypatch.Options{Workspace: root, Sync: sync}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				pr := mustResolve(b, fsys, flip[i%2], opts)
				b.StartTimer()
				if _, err := applypatch.Commit(context.Background(), pr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOutsideWritesExcludeTheOtherWorkspace: X16, F4. A commit in workspace a that the
// host allows to write b/f.txt outside it, and commits in workspace b writing the same
// file, race: the lock holds the outside directory too, so no insertion a call reports
// applied is lost (without it, one rename overwrote the other's file).
func TestOutsideWritesExcludeTheOtherWorkspace(t *testing.T) {
	p := t.TempDir()
	a, b := filepath.Join(p, "a"), filepath.Join(p, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	shared := filepath.Join(b, "f.txt")
	if err := os.WriteFile(shared, []byte("start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const each = 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	var applied []string
	run := func(ws, path, tag string, allow []string) {
		for i := range each {
			line := fmt.Sprintf("%s%d", tag, i)
			payload := fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n start\n+%s\n*** End Patch\n", path, line)
			_, err := applypatch.Apply(context.Background(), afero.NewOsFs(), payload, &applypatch.Options{Workspace: ws, Allow: allow})
			switch {
			case err == nil:
				mu.Lock()
				applied = append(applied, line)
				mu.Unlock()
			case !errors.Is(err, &applypatch.ConflictError{}):
				t.Errorf("%s: %v", line, err)
			}
		}
	}
	wg.Go(func() { run(a, "../b/f.txt", "A", []string{"/"}) })
	wg.Go(func() { run(b, "f.txt", "B", nil) })
	wg.Wait()
	data, _ := os.ReadFile(shared)
	for _, line := range applied {
		if !strings.Contains(string(data), "\n"+line+"\n") {
			t.Errorf("%s was reported applied and is gone: a lost update", line)
		}
	}
	if len(applied) < each {
		t.Errorf("only %d of %d insertions applied", len(applied), 2*each)
	}
}
