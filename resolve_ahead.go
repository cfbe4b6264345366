package applypatch

import (
	"sync"
	"sync/atomic"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/overlap"
)

// aheadMin is the fewest files worth reading ahead: below it the goroutine costs more
// than the reads it overlaps.
const aheadMin = 8

// A readAhead reads the baselines of a proposal's changes in a goroutine while the
// resolving goroutine places the hunks of the changes before them, so that a payload of
// many files waits less on the file system (a second goroutine reading gained nothing
// more: the placing is then what the resolve waits for). Each change's baseline is read
// by the same call, through the same fence, as the resolving goroutine would make, and
// taken in payload order: nothing is written while a proposal resolves, so reading a
// file a little earlier reads what reading it then would, and a file changed meanwhile is
// found changed by the commit's checks, as it is without the read-ahead.
type readAhead struct {
	got   []captured
	ready []chan struct{}
	quit  atomic.Bool
	wg    sync.WaitGroup
}

// captured is a change's baseline as read ahead, and the stamp its read kept; left is
// set where the goroutine stopped short of it (a panic), and the resolve reads it.
type captured struct {
	base  filestate.Baseline
	err   error
	stamp filestate.Stamp
	kept  bool
	left  bool
}

// captureAhead is how the goroutine reads a baseline: captureInto, but for tests.
var captureAhead = (*Proposal).captureInto

// readAhead starts reading the proposal's baselines ahead, or returns nil where that
// cannot pay or is not safe: few files to read, one processor, or a filesystem not known
// to be safe for concurrent use (a host's own afero.Fs may not be).
func (pr *Proposal) readAhead() *readAhead {
	n, reads := len(pr.changes), 0
	for _, c := range pr.changes {
		if readsAhead(c) {
			reads++
		}
	}
	if !overlap.Worth(pr.files(), reads, aheadMin) {
		return nil
	}
	ra := &readAhead{got: make([]captured, n), ready: make([]chan struct{}, n)}
	for i := range ra.ready {
		ra.ready[i] = make(chan struct{})
	}
	ra.wg.Go(func() { ra.work(pr) })
	return ra
}

// work reads the baselines in payload order, into a stamps map of its own, until all
// are read or the read-ahead is stopped. A panic leaves the baseline it happened on, and
// those after, to the resolve, which reads them itself and meets it, if it comes again,
// on the goroutine its caller can recover on.
func (ra *readAhead) work(pr *Proposal) {
	i := 0
	defer func() {
		if recover() != nil {
			for ; i < len(ra.got); i++ {
				if readsAhead(pr.changes[i]) {
					ra.got[i].left = true
					close(ra.ready[i])
				}
			}
		}
	}()
	stamps := filestate.Stamps{}
	for ; i < len(ra.got) && !ra.quit.Load(); i++ {
		c, got := pr.changes[i], &ra.got[i]
		if !readsAhead(c) {
			continue
		}
		got.base, got.err = captureAhead(pr, c, stamps)
		got.stamp, got.kept = stamps[c.name]
		delete(stamps, c.name)
		close(ra.ready[i])
	}
}

// capture returns the baseline of change i: read ahead, once it is, with its stamp kept
// in the proposal's as the read would have kept it there; or, without a read-ahead, read
// now.
func (ra *readAhead) capture(pr *Proposal, i int) (filestate.Baseline, error) {
	if ra == nil || !readsAhead(pr.changes[i]) {
		return pr.captureEntry(pr.changes[i])
	}
	<-ra.ready[i]
	got := &ra.got[i]
	if got.left {
		return pr.captureEntry(pr.changes[i])
	}
	if got.kept {
		pr.read[pr.changes[i].name] = got.stamp
	}
	return got.base, got.err
}

// readsAhead reports whether a change's baseline is read ahead: a file it changes,
// which is read whole, and not the absence an Add finds, which costs a look at most.
func readsAhead(c *change) bool { return c.Op.Kind != OpAdd }

// stop ends the read-ahead and waits for its goroutine: it never outlives the resolve.
func (ra *readAhead) stop() {
	if ra != nil {
		ra.quit.Store(true)
		ra.wg.Wait()
	}
}
