package applypatch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// TestCrashThenCopiedWorkspace: X15. A journal names paths relative to its workspace,
// so a workspace moved or copied after a crash recovers itself where it now is: the
// copy is put back to its baseline (or kept at the commit's result) without a write to
// the original, which still holds its own journal and recovers on its own. Every
// interruption point of the matrix commit is tried.
func TestCrashThenCopiedWorkspace(t *testing.T) {
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("no cp to copy a tree with its modes")
	}
	b := matrixBackends[1] // OsFs
	total := cleanCount(t, b, false)
	view, root := b.new(t)
	commitThrough(t, view, root, false)
	final := readTree(t, view, root)
	same := func(a, b map[string]treeEntry) bool { return cmp.Equal(a, b, cmp.AllowUnexported(treeEntry{})) }
	recovered := 0
	for k := 0; k <= total; k += max(1, total/12) {
		view, root := b.new(t)
		before := readTree(t, view, root)
		err := commitThrough(t, faultfs.New(view, haltAfter(k)), root, false)

		moved := filepath.Join(t.TempDir(), "moved")
		if err := os.Rename(root, moved); err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(t.TempDir(), "copied")
		if out, err := exec.Command("cp", "-a", moved, copied).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
		original := readTree(t, view, moved)

		r := recoverView(t, view, copied)
		if r.Found {
			recovered++
		}
		if got := readTree(t, view, moved); !same(original, got) {
			t.Fatalf("k=%d: recovering the copy changed the moved original:\n%v", k, treeDiff(original, got))
		}
		recoverView(t, view, moved)
		for _, dir := range []string{copied, moved} {
			after := readTree(t, view, dir)
			switch {
			case same(before, after):
			case same(final, after):
				if err != nil {
					t.Errorf("k=%d %s: the commit failed (%v) but its result stayed", k, filepath.Base(dir), err)
				}
			default:
				t.Fatalf("k=%d %s: after recovery the tree is neither baseline nor final:\nbaseline diff %v\nfinal diff %v",
					k, filepath.Base(dir), treeDiff(before, after), treeDiff(final, after))
			}
			if names, _ := afero.Glob(view, filepath.Join(dir, ".applypatch-journal*")); len(names) != 0 {
				t.Errorf("k=%d %s: journal left: %v", k, filepath.Base(dir), names)
			}
		}
	}
	if recovered == 0 {
		t.Error("no interruption left a journal to recover; the test did not test recovery")
	}
}
