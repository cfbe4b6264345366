package applypatch_test

import (
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// haltAfter makes every counted operation after the k-th fail, as if the process had
// died there: rollback runs, but none of its writes takes effect.
func haltAfter(k int) faultfs.Rule {
	n := 0
	return faultfs.FailEvery(func(faultfs.Op, string) bool {
		n++
		return n > k
	})
}

// TestCrashMatrixRecovers stops the five-file matrix commit (an Add into a new
// directory, Updates, a Delete, a Move into a new directory) as if the process died
// after its k-th filesystem operation, for every k, on MemMapFs and OsFs (with and
// without a rename that refuses a name), then runs recovery: every k ends with the whole
// tree at its baseline or at the commit's result, with no temporary file, directory or
// journal left (X11).
func TestCrashMatrixRecovers(t *testing.T) {
	for _, b := range matrixBackends[:3] {
		t.Run(b.name, func(t *testing.T) {
			total := cleanCount(t, b, false)
			view, root := b.new(t)
			commitThrough(t, view, root, false)
			final := readTree(t, view, root)
			counts := map[string]int{}
			for k := 0; k <= total; k++ {
				view, root := b.new(t)
				before := readTree(t, view, root)
				err := commitThrough(t, faultfs.New(view, haltAfter(k)), root, false)
				r := recoverView(t, view, root)
				after := readTree(t, view, root)
				switch {
				case cmp.Equal(before, after, cmp.AllowUnexported(treeEntry{})):
					counts["baseline"]++
				case cmp.Equal(final, after, cmp.AllowUnexported(treeEntry{})):
					counts["final"]++
					if err != nil {
						t.Errorf("k=%d: the commit failed (%v) but its result stayed", k, err)
					}
				default:
					t.Fatalf("k=%d: after recovery (%+v) the tree is neither baseline nor final:\nbaseline diff %v\nfinal diff %v",
						k, r, treeDiff(before, after), treeDiff(final, after))
				}
				if r.Found {
					counts["journal recovered"]++
				}
			}
			t.Logf("k = 0..%d: %v", total, counts)
			if counts["journal recovered"] == 0 || counts["baseline"] < total/2 {
				t.Errorf("the matrix did not interrupt commits midway: %v", counts)
			}
		})
	}
}

// TestRecoverNothing: recovery in a workspace with no interrupted commit does nothing
// and says so.
func TestRecoverNothing(t *testing.T) {
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, matrixFiles)
		before := readTree(t, fsys, root)
		r := recoverView(t, fsys, root)
		if r.Found || r.String() != "" {
			t.Errorf("recovery found %+v (%q), want nothing", r, r.String())
		}
		if diff := treeDiff(before, readTree(t, fsys, root)); len(diff) > 0 {
			t.Errorf("recovery changed %v", diff)
		}
	})
}
