package txn

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/applypatch/applypatch/internal/overlap"
)

// aheadMin is the fewest write steps worth writing ahead: below it the goroutine costs
// more than the writes it overlaps. aheadBytes is the fewest bytes worth writing ahead
// however few the steps: a large file's write then overlaps the check of the file just
// before it, which may read as many bytes again.
const (
	aheadMin   = 8
	aheadBytes = 1 << 20
)

// A tempsAhead writes the new bytes of a plan's write steps into their temporary files
// in a goroutine, in plan order, while the transaction's own goroutine checks and
// places the steps before them: on a commit of many files, about half of each step's
// system calls leave the path the steps wait on.
//
// What each step promises stays with the transaction's goroutine, in plan order: the
// fence's walk, the owner and buffer checks, the baseline check, the look just before
// the rename, the rename, and any error. A temporary file made ahead is one the step
// would make a moment later, named for the commit's journal, hidden, beside its target,
// through the same confined filesystem; it is recorded for rollback as it is created,
// and recovery after a crash removes it like any other. A write the goroutine cannot do
// (a directory the step has yet to make, a full disk) it leaves, and the step writes it
// itself as it would have, reporting what fails.
type tempsAhead struct {
	// made holds, by plan index, the temporary file written for a step; "" where none.
	made []string
	// claim says, by plan index, who writes a step's file: the first to claim it, the
	// goroutine (claimAhead) or the step itself (claimStep), which then needs no wait.
	claim []atomic.Int32
	// ready is closed once the goroutine is done with a step it claimed; dirs once the
	// transaction has made that step's missing directories.
	ready, dirs []chan struct{}
	quit        chan struct{}
	wg          sync.WaitGroup
}

// Who writes a step's temporary file.
const (
	claimNone  int32 = iota
	claimAhead       // the goroutine
	claimStep        // the step, on the transaction's goroutine
)

// startAhead starts writing the plan's temporary files ahead, where it can pay and is
// safe: a journal names the files, the plan has enough writes or enough bytes to write,
// there is a second processor, the filesystem is known to be safe for concurrent use,
// and the host asks nothing of each step (a host that asks, just before each step,
// whether it still owns the file or whether an editor holds it unsaved, has no file
// written beside it before it answers). The journal has summed what each step writes,
// so the sizes cost nothing here.
func (tx *txn) startAhead() {
	asks := tx.cfg.Owns != nil || tx.cfg.Unsaved != nil
	if tx.jr == nil || asks || !overlap.Possible(tx.fsys) {
		return
	}
	writes, size := 0, int64(0)
	for _, st := range tx.plan {
		if st.Op == Write {
			writes++
			n, _ := st.Written()
			size += n
		}
	}
	if writes < aheadMin && size < aheadBytes {
		return
	}
	n := len(tx.plan)
	ta := &tempsAhead{made: make([]string, n), claim: make([]atomic.Int32, n), ready: make([]chan struct{}, n),
		dirs: make([]chan struct{}, n), quit: make(chan struct{})}
	for i := range n {
		ta.ready[i], ta.dirs[i] = make(chan struct{}), make(chan struct{})
	}
	tx.ahead = ta
	ta.wg.Go(func() { ta.work(tx) })
}

// work writes each write step's temporary file in plan order until the plan ends or
// the transaction stops it, skipping those the steps claimed first. A file that cannot
// be created because its directory is still missing is tried again once the
// transaction has made the step's directories.
func (ta *tempsAhead) work(tx *txn) {
	for i, st := range tx.plan {
		if ta.stopped() {
			return
		}
		if st.Op == Write && ta.claim[i].CompareAndSwap(claimNone, claimAhead) {
			ta.made[i] = ta.prepare(tx, i, st)
			close(ta.ready[i])
		}
	}
}

// prepare writes the temporary file of step i, st, and returns its name, or "" where
// it leaves the file to the step.
func (ta *tempsAhead) prepare(tx *txn, i int, st *Step) string {
	name, err := ta.write(tx, st)
	if name == "" && absent(err) {
		select {
		case <-ta.quit:
			return ""
		case <-ta.dirs[i]:
		}
		name, err = ta.write(tx, st)
	}
	if name != "" && err != nil {
		tx.removeTemp(name) // the step writes it again, and reports what fails
		return ""
	}
	return name
}

// stopped reports whether the transaction has stopped the goroutine.
func (ta *tempsAhead) stopped() bool {
	select {
	case <-ta.quit:
		return true
	default:
		return false
	}
}

// write is writeTemp for the goroutine: a panic is a failure to write ahead, which the
// step meets again on the transaction's goroutine, where the commit rolls back.
func (ta *tempsAhead) write(tx *txn, st *Step) (name string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v", r)
		}
	}()
	return tx.writeTemp(st, st.Body, st.Mode, st.owner)
}

// madeDirs tells the goroutine that the step at index i has made its directories (or
// failed to): a file it could not create for want of them can be tried again.
func (ta *tempsAhead) madeDirs(i int) {
	if ta != nil {
		close(ta.dirs[i])
	}
}

// temp returns the temporary file of the step at index i, written ahead, or writes it
// now where the goroutine did not: its name ("" where none was created) and what failed.
// A step the goroutine has not reached is claimed and written at once, so the
// transaction waits only for a file being written.
func (ta *tempsAhead) temp(tx *txn, i int) (string, error) {
	st := tx.plan[i]
	if ta != nil && !ta.claim[i].CompareAndSwap(claimNone, claimStep) {
		<-ta.ready[i]
		if name := ta.made[i]; name != "" {
			return name, nil
		}
	}
	return tx.writeTemp(st, st.Body, st.Mode, st.owner)
}

// stopAhead stops the goroutine and waits for it, so that rollback, or the end of the
// commit, sees every temporary file it made.
func (tx *txn) stopAhead() {
	if ta := tx.ahead; ta != nil {
		close(ta.quit)
		ta.wg.Wait()
		tx.ahead = nil
	}
}
