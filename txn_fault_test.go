package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// matrixFiles is the baseline of the fault matrix: modes differ so that restoring a
// mode is checked too, and docs/keep.txt is never named by the payload.
var matrixFiles = map[string]fixtureFile{
	"src/main.go":   {"package main\n\nfunc main() {\n\tprintln(\"old\")\n}\n", 0o755},
	"README.md":     {"# Title\n\nIntro.\n", 0o600},
	"docs/old.md":   {"obsolete\n", 0o644},
	"docs/keep.txt": {"untouched\n", 0o644},
	"lib/util.txt":  {"alpha\nbeta\ngamma\n", 0o640},
}

// matrixPayload touches five files with every kind of operation: an Add into a new
// nested directory, two Updates, a Delete and a Move into a new directory (X3).
const matrixPayload = `*** Begin Patch
*** Add File: new/deep/added.txt
+hello
+world
*** Update File: src/main.go
@@ func main() {
-	println("old")
+	println("new")
*** Delete File: docs/old.md
*** Update File: lib/util.txt
*** Move to: moved/here/util.txt
@@
 alpha
-beta
+BETA
*** Update File: README.md
@@
 Intro.
+More.
*** End Patch
`

// matrixResult is what a clean run leaves, files only: the modes show T6 at work.
var matrixResult = map[string]treeEntry{
	"new/deep/added.txt":  {mode: 0o644, data: "hello\nworld\n"},
	"src/main.go":         {mode: 0o755, data: "package main\n\nfunc main() {\n\tprintln(\"new\")\n}\n"},
	"docs/keep.txt":       {mode: 0o644, data: "untouched\n"},
	"moved/here/util.txt": {mode: 0o640, data: "alpha\nBETA\ngamma\n"},
	"README.md":           {mode: 0o600, data: "# Title\n\nIntro.\nMore.\n"},
}

// A matrixFs builds a filesystem holding matrixFiles and returns it with its workspace.
type matrixFs struct {
	name string
	new  func(t testing.TB) (afero.Fs, string)
}

// withFixture seeds a plain backend.
func withFixture(b fsBackend) matrixFs {
	return matrixFs{b.name, func(t testing.TB) (afero.Fs, string) {
		fsys, root := b.new(t)
		writeFixture(t, fsys, root, matrixFiles)
		return fsys, root
	}}
}

// noRenameFs is a filesystem whose Rename is impossible, as across devices (EXDEV) or in
// afero layers that refuse it (EPERM): commits fall back to rewriting in place (X4).
type noRenameFs struct {
	afero.Fs
	errno syscall.Errno
}

func (f noRenameFs) Rename(oldname, newname string) error {
	return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: f.errno}
}

// matrixBackends are the filesystems of the fault matrix; the first three are the
// in-memory one, the OS one, and the OS one as without a rename that refuses a name.
var matrixBackends = []matrixFs{
	withFixture(fsBackends[0]),
	withFixture(fsBackends[1]),
	{"OsFs-links", func(t testing.TB) (afero.Fs, string) {
		root := t.TempDir()
		writeFixture(t, afero.NewOsFs(), root, matrixFiles)
		return linksOnlyOs{&afero.OsFs{}}, root
	}},
	{"CopyOnWriteFs", func(t testing.TB) (afero.Fs, string) {
		// The files the payload updates live in a read-only base layer; the ones it
		// deletes or moves in the writable layer, since afero's CopyOnWriteFs cannot
		// remove a base file.
		base, layer := afero.NewMemMapFs(), afero.NewMemMapFs()
		inBase := map[string]fixtureFile{}
		inLayer := map[string]fixtureFile{}
		for name, f := range matrixFiles {
			if strings.HasPrefix(name, "src/") || name == "README.md" || name == "docs/keep.txt" {
				inBase[name] = f
			} else {
				inLayer[name] = f
			}
		}
		writeFixture(t, base, "/ws", inBase)
		writeFixture(t, layer, "/ws", inLayer)
		// Creating a file in a directory of the base materialises the directory in
		// the layer with mode 0777; mirror the base's directories so the view's modes
		// stay those of the baseline.
		for _, dir := range []string{"/ws/src", "/ws/docs"} {
			if err := layer.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return afero.NewCopyOnWriteFs(afero.NewReadOnlyFs(base), layer), "/ws"
	}},
	{"OsFs-EXDEV", func(t testing.TB) (afero.Fs, string) {
		fsys, root := fsBackends[1].new(t)
		writeFixture(t, fsys, root, matrixFiles)
		return noRenameFs{fsys, syscall.EXDEV}, root
	}},
	{"MemMapFs-EPERM", func(t testing.TB) (afero.Fs, string) {
		fsys, root := fsBackends[0].new(t)
		writeFixture(t, fsys, root, matrixFiles)
		return noRenameFs{fsys, syscall.EPERM}, root
	}},
}

// commitThrough resolves the matrix payload on fsys and commits it. Resolve only reads,
// so with the default faultfs counting every counted operation is the commit's.
func commitThrough(t testing.TB, fsys afero.Fs, root string, sync bool) error {
	t.Helper()
	pr := mustResolve(t, fsys, matrixPayload, &applypatch.Options{Workspace: root, Sync: sync})
	_, err := applypatch.Commit(context.Background(), pr)
	return err
}

// cleanCount commits the matrix payload on a fresh backend without faults, checks the
// result and returns the number of counted operations.
func cleanCount(t *testing.T, b matrixFs, sync bool) int {
	t.Helper()
	view, root := b.new(t)
	ffs := faultfs.New(view)
	if err := commitThrough(t, ffs, root, sync); err != nil {
		t.Fatalf("clean run: %v", err)
	}
	checkApplied(t, "clean run", view, root)
	return ffs.Count()
}

// checkApplied asserts that the files are those a clean run of the matrix leaves.
func checkApplied(t *testing.T, label string, view afero.Fs, root string) {
	t.Helper()
	got := map[string]treeEntry{}
	for name, e := range readTree(t, view, root) {
		if !e.dir {
			got[name] = e
		}
	}
	if diff := cmp.Diff(matrixResult, got, cmp.AllowUnexported(treeEntry{})); diff != "" {
		t.Fatalf("%s left (-want +got):\n%s", label, diff)
	}
}

// outcome is how one faulted run ended.
type outcome struct {
	complete   int            // rolled back to the baseline
	incomplete int            // an IncompleteRollbackError naming exactly what differs
	finished   int            // of those, rollbacks a recovery finished from the journal kept
	paths      map[string]int // how often each path was reported not restored
}

func (o *outcome) String() string {
	return fmt.Sprintf("%d restored completely, %d reported incomplete (%d finished by recovery) %v", o.complete, o.incomplete, o.finished, o.paths)
}

// checkRollback asserts X5/X6 after a faulted commit: the error wraps the injected fault
// whose number is first, and either every path is byte for byte and mode for mode at
// its baseline with no temporary file or created directory left, or the error is an
// *IncompleteRollbackError listing exactly the paths that differ.
func checkRollback(t *testing.T, label string, err error, first int, before, after fsTree, o *outcome) {
	t.Helper()
	if !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("%s: err = %v, want the injected fault", label, err)
	}
	var fault *faultfs.Error
	if errors.As(err, &fault) && fault.N != first {
		t.Errorf("%s: error wraps fault %d, want the first failure %d: %v", label, fault.N, first, err)
	}
	differ := treeDiff(before, after)
	var ire *applypatch.IncompleteRollbackError
	if !errors.As(err, &ire) {
		if len(differ) > 0 {
			t.Fatalf("%s: rollback claimed complete, but these differ from the baseline: %v\nerr: %v", label, differ, err)
		}
		o.complete++
		return
	}
	// Recovery, run after the failed commit as every entry point does, may restore what
	// rollback could not: what still differs is among the paths reported.
	for _, p := range differ {
		if !slices.Contains(ire.Paths, p) {
			t.Fatalf("%s: %s differs from the baseline but IncompleteRollbackError.Paths %v omit it\nerr: %v", label, p, ire.Paths, err)
		}
	}
	if !errors.As(err, new(*applypatch.IncompleteRollbackError)) || !strings.Contains(err.Error(), "Inspect them before retrying") {
		t.Errorf("%s: err = %v, want an incomplete rollback telling the user to inspect", label, err)
	}
	o.incomplete++
	if strings.Contains(err.Error(), "The commit's journal keeps what they held before") {
		// X6, X11: the journal stayed for recovery, which, the fault gone, put back every
		// file that existed: what may still differ is only what the commit added (a
		// partial write that recovery cannot tell from another writer's, and leaves).
		for _, p := range differ {
			if _, existed := before[p]; existed {
				t.Fatalf("%s: the journal was kept, yet recovery left %s different\nerr: %v", label, p, err)
			}
		}
		if len(differ) == 0 {
			o.finished++
		}
	}
	if o.paths == nil {
		o.paths = map[string]int{}
	}
	for _, p := range ire.Paths {
		o.paths[tempKey(p)]++
	}
}

// tempKey is one key for every temporary file of a target.
func tempKey(p string) string {
	if i := strings.Index(p, ".applypatch-"); i >= 0 {
		return p[:i] + ".applypatch-*"
	}
	return p
}

// TestCommitFaultMatrix fails the k-th mutating filesystem operation of a commit, for
// every k of a clean run, on every backend, with and without Options.Sync: a single
// fault always rolls back completely (X4, X5).
func TestCommitFaultMatrix(t *testing.T) {
	var tried atomic.Int64
	t.Cleanup(func() { t.Logf("fault matrix: %d single-fault runs", tried.Load()) })
	for _, b := range matrixBackends {
		for _, sync := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sync=%v", b.name, sync), func(t *testing.T) {
				t.Parallel()
				total := cleanCount(t, b, sync)
				var o outcome
				for k := 1; k <= total; k++ {
					view, root := b.new(t)
					before := readTree(t, view, root)
					ffs := faultfs.New(view, faultfs.FailAt(k))
					err := commitThrough(t, ffs, root, sync)
					ev := ffs.Events()
					if len(ev) < k || !errors.Is(ev[k-1].Err, faultfs.ErrInjected) {
						t.Fatalf("k=%d: operation %d was not failed (%d operations)", k, k, len(ev))
					}
					label := fmt.Sprintf("k=%d (%s %s)", k, ev[k-1].Op, ev[k-1].Name)
					recoverView(t, view, root)
					if err == nil {
						// A fault while the journal is cleared after the commit became
						// final is absorbed; recovery clears what stays (X11).
						checkApplied(t, label, view, root)
						continue
					}
					checkRollback(t, label, err, k, before, readTree(t, view, root), &o)
				}
				if o.incomplete > 0 {
					t.Errorf("a single fault left an incomplete rollback: %v", &o)
				}
				tried.Add(int64(total))
				t.Logf("k = 1..%d tried: %v", total, &o)
			})
		}
	}
}

// opIs selects operations of one kind.
func opIs(ops ...faultfs.Op) func(faultfs.Op, string) bool {
	return func(op faultfs.Op, _ string) bool { return slices.Contains(ops, op) }
}

// TestCommitFailEveryOp fails every operation of one kind. Where rollback needs that
// kind too, the error is an IncompleteRollbackError naming exactly the paths left
// different, with the first failure wrapped (X6).
func TestCommitFailEveryOp(t *testing.T) {
	cases := []struct {
		op   faultfs.Op
		sync bool
		// lost are the paths rollback cannot restore, nil when it restores them all;
		// linkedLost, when set, those where the Add was linked into place.
		lost, linkedLost []string
	}{
		{op: faultfs.OpRename},
		{op: faultfs.OpChmod},
		{op: faultfs.OpMkdir},
		{op: faultfs.OpCreate},
		{op: faultfs.OpWrite},
		{op: faultfs.OpClose},
		{op: faultfs.OpSync, sync: true},
		// The Delete fails; undoing the Add needs a remove too. Where the Add is linked
		// into place (X3: a filesystem with hard links and no rename that refuses a name),
		// the first remove is of its temporary name, which stays too.
		{op: faultfs.OpRemove, lost: []string{"new", "new/deep", "new/deep/added.txt"},
			linkedLost: []string{"new", "new/deep", "new/deep/.added.txt.applypatch-*", "new/deep/added.txt"}},
	}
	for _, b := range matrixBackends[:3] {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s", b.name, c.op), func(t *testing.T) {
				view, root := b.new(t)
				before := readTree(t, view, root)
				ffs := faultfs.New(view, faultfs.FailEvery(opIs(c.op)))
				err := commitThrough(t, ffs, root, c.sync)
				recoverView(t, view, root)
				first := slices.IndexFunc(ffs.Events(), func(e faultfs.Event) bool { return e.Op == c.op }) + 1
				var o outcome
				checkRollback(t, string(c.op), err, first, before, readTree(t, view, root), &o)
				var ire *applypatch.IncompleteRollbackError
				errors.As(err, &ire)
				var lost []string
				if ire != nil {
					lost = slices.Clone(ire.Paths)
				}
				for i, p := range lost {
					lost[i] = tempKey(p)
				}
				want := c.lost
				if linkedInto(ffs, "new/deep/added.txt") && c.linkedLost != nil {
					want = c.linkedLost
				}
				if diff := cmp.Diff(want, lost); diff != "" {
					t.Errorf("paths not restored (-want +got):\n%s\nerr: %v", diff, err)
				}
			})
		}
	}
}

// failAtThenEvery fails the k-th counted operation and, from then on, every operation
// of the kinds given: a fault followed by a rollback that fails as well.
func failAtThenEvery(k int, ops ...faultfs.Op) faultfs.Rule {
	n := 0
	return faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
		n++
		return n == k || n > k && slices.Contains(ops, op)
	})
}

// firstFault is the number of the first injected fault a commit did not absorb: a
// baseline's hard link into the journal that fails is replaced by a copy (X11), so the
// commit goes on, and a later fault is the one it reports.
func firstFault(events []faultfs.Event) int {
	for _, e := range events {
		absorbed := e.Op == faultfs.OpLink && strings.Contains(e.Name, ".applypatch-journal")
		if errors.Is(e.Err, faultfs.ErrInjected) && !absorbed {
			return e.N
		}
	}
	return 0
}

// TestCommitFaultMatrixFailingRollback fails the k-th operation for every k and then
// every later operation of one kind rollback needs: each run ends at the baseline or
// with an IncompleteRollbackError naming exactly the paths that differ and wrapping the
// k-th fault (X6).
func TestCommitFaultMatrixFailingRollback(t *testing.T) {
	kinds := [][]faultfs.Op{
		{faultfs.OpRemove},
		{faultfs.OpRename},
		{faultfs.OpCreate},
		{faultfs.OpChmod},
		{faultfs.OpWrite},
		{faultfs.OpRemove, faultfs.OpRename},
	}
	var tried atomic.Int64
	t.Cleanup(func() { t.Logf("failing-rollback matrix: %d runs", tried.Load()) })
	for _, b := range matrixBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			total := cleanCount(t, b, false)
			for _, ops := range kinds {
				var o outcome
				for k := 1; k <= total; k++ {
					view, root := b.new(t)
					before := readTree(t, view, root)
					ffs := faultfs.New(view, failAtThenEvery(k, ops...))
					err := commitThrough(t, ffs, root, false)
					label := fmt.Sprintf("k=%d then every %v", k, ops)
					recoverView(t, view, root)
					if err == nil {
						checkApplied(t, label, view, root)
						continue
					}
					checkRollback(t, label, err, firstFault(ffs.Events()), before, readTree(t, view, root), &o)
				}
				tried.Add(int64(total))
				t.Logf("k = 1..%d, then every %v fails: %v", total, ops, &o)
			}
		})
	}
}

// TestCommitFaultMatrixReads fails the k-th operation counting reads too, over Resolve
// and Commit together: a failed read before the first write refuses the patch with
// nothing written; later, the general X5/X6 property holds.
func TestCommitFaultMatrixReads(t *testing.T) {
	for _, b := range matrixBackends[:3] {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			view, root := b.new(t)
			ffs := faultfs.New(view, faultfs.CountReads())
			if err := commitThrough(t, ffs, root, false); err != nil {
				t.Fatal(err)
			}
			total := ffs.Count()
			var o outcome
			absorbed := 0
			for k := 1; k <= total; k++ {
				view, root := b.new(t)
				before := readTree(t, view, root)
				ffs := faultfs.New(view, faultfs.CountReads(), faultfs.FailAt(k))
				p, err := applypatch.Parse(matrixPayload)
				if err != nil {
					t.Fatal(err)
				}
				var pr *applypatch.Proposal
				pr, err = applypatch.Resolve(context.Background(), ffs, p, &applypatch.Options{Workspace: root})
				if err == nil {
					_, err = applypatch.Commit(context.Background(), pr)
				}
				// A file older than the racy window at its read is checked by its metadata
				// alone, so on a loaded machine a run may take fewer operations than the
				// first and never reach k.
				label := fmt.Sprintf("k=%d (not reached)", k)
				if events := ffs.Events(); k <= len(events) {
					label = fmt.Sprintf("k=%d (%s %s)", k, events[k-1].Op, events[k-1].Name)
				}
				recoverView(t, view, root)
				if err == nil {
					// A read whose failure changes nothing (afero.ReadFile's size hint
					// from File.Stat) is absorbed: the commit then applies fully.
					checkApplied(t, label, view, root)
					absorbed++
					continue
				}
				checkRollback(t, label, err, k, before, readTree(t, view, root), &o)
			}
			t.Logf("k = 1..%d tried (reads counted): %v, %d faults absorbed", total, &o, absorbed)
		})
	}
}

// recoverView runs recovery on a filesystem after a commit on it failed or was
// interrupted, as every entry point does before anything else (X11).
func recoverView(t testing.TB, view afero.Fs, root string) *applypatch.Recovery {
	t.Helper()
	r, err := applypatch.Recover(context.Background(), view, &applypatch.Options{Workspace: root})
	if err != nil {
		t.Fatalf("recovery: %v", err)
	}
	return r
}
