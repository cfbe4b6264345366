package applypatch

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/turns"
	"github.com/applypatch/applypatch/internal/txn"
)

// workspaceFile names, in a user history's directory, the workspace it belongs to.
const workspaceFile = "workspace"

// goneFile marks, in a user history's directory, that its workspace was found missing:
// its modification time says when first.
const goneFile = "gone"

// sweepGrace is how long a workspace may be missing before its history is removed: a
// tree moved away for a while, or on a disk not mounted, keeps it.
const sweepGrace = 14 * 24 * time.Hour

// sweepStart starts, once, the sweep of the histories beside a user history on a
// goroutine of its own, and returns the function that waits for it to end (at once for a
// history that is no user's). Removing a gone workspace's files (a benchmark or a test
// makes one on every run) then overlaps the commit's own work instead of following it:
// a commit of many steps starts it as it begins to write and waits for it before it
// becomes final; one of few starts it once it is final, beside its history entry (see
// sweepBeside); either waits for it before it returns. A panic on the sweep's goroutine
// is raised again by the first wait, on the commit's goroutine, where the sweep used to
// run: a commit of many steps is then rolled back; one of few is already final, as it
// is when its history entry panics.
func (h *History) sweepStart() (wait func()) {
	h.sweep.Do(func() {
		h.swept = func() {}
		if h.workspace != "" {
			h.swept = turns.Start(func() { sweepAll(filepath.Dir(h.dir), filepath.Base(h.dir), time.Now()) })
		}
	})
	return h.swept
}

// sweepBesideSteps is the fewest steps of a commit that sweeps beside its writes.
const sweepBesideSteps = 8

// sweepBeside reports whether a commit of plan sweeps as it begins to write: one of many
// steps, whose two goroutines take turns waiting on the file system and leave the
// processors room for the sweep. A commit of few steps spends its writes on one
// goroutine filling a file's pages while the other waits for it; the sweep, which is
// mostly the kernel freeing a gone history's pages, would take a processor and the
// memory's locks from that write, and runs once the commit is final instead, beside the
// history's entry.
func sweepBeside(plan []*txn.Step) bool { return len(plan) >= sweepBesideSteps }

// sweepAll is how a commit sweeps: sweepHistories, but for tests.
var sweepAll = sweepHistories

// sweepHistories removes user histories beside keep whose workspace is gone for good,
// which can never be undone and would otherwise keep their files' bytes forever:
//   - another directory is at its path (a tree deleted and made again, as a test or a
//     benchmark does on every run): removed at once;
//   - nothing is at its path, a file is, or a link to the directory moved elsewhere:
//     marked, and removed once that has lasted sweepGrace; a workspace found again
//     loses the mark;
//   - it is there: the journal directories its undos and redos left spent are removed
//     (its own next commit would remove them, but it may never come).
//
// A path that cannot be looked at (no permission) is left alone. A run checks at most
// sweepBudget histories, chosen at random: each check costs a few system calls, and a
// user's state can hold the histories of hundreds of workspaces.
func sweepHistories(all, keep string, now time.Time) {
	entries, err := os.ReadDir(all)
	if err != nil {
		return
	}
	others := slices.DeleteFunc(entries, func(d os.DirEntry) bool {
		return d.Name() == keep || !d.IsDir() || len(d.Name()) != 32
	})
	rand.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for _, d := range others[:min(len(others), sweepBudget)] {
		sweepHistory(filepath.Join(all, d.Name()), d.Name(), now)
	}
}

// sweepHistory applies the rules of sweepHistories to the history in dir, named id.
func sweepHistory(dir, id string, now time.Time) {
	b, err := history.ReadSmall(afero.NewOsFs(), filepath.Join(dir, workspaceFile), 4096)
	if err != nil {
		return // being made, or not ours to judge (a link, a FIFO, a large file)
	}
	recorded, mark := string(b), filepath.Join(dir, goneFile)
	found, _, err := workspaceIdentity(recorded)
	switch {
	case err == nil && found == id:
		os.Remove(mark) // there again, if it was missing
		removeSpent(afero.NewOsFs(), dir)
	case err == nil && !reachedBy(recorded, id):
		os.RemoveAll(dir) // another directory took the path
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotDir):
		// not known to be gone
	case missingSince(mark, now) > sweepGrace:
		os.RemoveAll(dir) // missing, moved away (perhaps behind a link), or a file in its place, for long
	}
}

// reachedBy reports whether the recorded path still leads, through a symbolic link, to
// the very directory the history named id belongs to: a workspace moved and linked from
// where it was, which is not gone.
func reachedBy(recorded, id string) bool {
	fi, err := os.Stat(recorded)
	if err != nil || !fi.IsDir() {
		return false
	}
	return identityOf(recorded, fi) == id
}

// missingSince is how long ago the mark says a workspace was first found missing,
// making the mark, dated now, where there is none.
func missingSince(mark string, now time.Time) time.Duration {
	fi, err := os.Stat(mark)
	if err != nil {
		if f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
			os.Chtimes(mark, now, now)
		}
		return 0
	}
	return now.Sub(fi.ModTime())
}

// sweepBudget is the most other workspaces' histories one run checks: with hundreds in
// the state directory, a gone one is still removed within a few dozen runs, and no run
// pays for all of them (about 50 us each).
const sweepBudget = 8
