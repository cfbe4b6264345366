package applypatch

import "github.com/applypatch/applypatch/internal/turns"

// resultAheadMin is the fewest lines (an applied change's or hunk's) a commit's result
// reports for it to be built beside the commit: below it the goroutine costs more than
// the result, which is a line and a diff of each.
const resultAheadMin = 64

// A resultAhead is the result of a commit, built on a goroutine of its own while the
// commit runs, where a second processor can build it, it is large enough to pay, and
// building it asks the host nothing: a host that declares encodings is asked for a
// deleted file's (its lines are shown), and its callbacks are called on the caller's
// goroutine, one at a time, as they always are. The result reads the proposal alone,
// which a commit does not change: built during the commit's writes or after them, it is
// the same.
type resultAhead struct {
	wait func() // waits for the goroutine; nothing to wait for where there is none
	res  *Result
}

// resultAhead starts building the result of the commit about to run. Whatever the
// commit's outcome, the caller waits for it before the proposal is given back, so that
// nothing still reads the proposal when its owner may change it.
func (pr *Proposal) resultAhead() *resultAhead {
	ra := &resultAhead{wait: func() {}}
	if applied, _ := pr.tally(); applied >= resultAheadMin && turns.SecondProcessor() && pr.opts.Encoding == nil {
		ra.wait = turns.Start(func() { ra.res = pr.result() })
	}
	return ra
}

// take is the result: as built beside the commit, or built now where it was not.
func (ra *resultAhead) take(pr *Proposal) *Result {
	ra.wait()
	if ra.res == nil {
		ra.res = pr.result()
	}
	return ra.res
}
