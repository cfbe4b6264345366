package applypatch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/applypatch/applypatch/internal/show"
)

// A Reviewer is a host's front end: a terminal, an editor, a web page, a policy. Review
// hands it the live [Session] of one proposal; it renders the session, calls its methods
// as a person (or a script) decides, and ends the review with [Session.Submit],
// [Session.Reject] or [Session.Abort].
//
// Review may block until the session settles, or return nil early and let its front end
// settle the session later (an event-driven editor or a web round trip): [Review] waits for
// the settlement either way. Returning an error before the session settles settles it with
// that error. Review must return when ctx is cancelled; the session is then aborted. Once
// the session has settled, Review should return promptly: the host waits for it.
type Reviewer interface {
	Review(ctx context.Context, s *Session) error
}

// ReviewerFunc adapts a function to [Reviewer].
type ReviewerFunc func(ctx context.Context, s *Session) error

// Review calls f.
func (f ReviewerFunc) Review(ctx context.Context, s *Session) error { return f(ctx, s) }

// Review runs the third stage of the pipeline: it opens a live review of the proposal,
// lets the reviewer drive it until it settles, and returns the settled result.
// Submitting runs [Commit], so the result says what was written; a review that requests
// a revision writes nothing and is a success; rejecting everything is an error result
// ([ErrRejected]); a cancelled context or a torn-down front end is [ErrAborted].
//
// The result is settled exactly once: the first of submission, rejection, abort, context
// cancellation or reviewer failure wins, and everything after it is ignored.
func Review(ctx context.Context, pr *Proposal, rv Reviewer) (*Result, error) {
	if pr == nil {
		return errorResult(errNoProposal), errNoProposal
	}
	return NewSession(pr).Run(ctx, rv)
}

// State is where a [Session] is in its life.
type State string

const (
	// StateOpen: the review is interactive.
	StateOpen State = "open"
	// StateSubmitting: the patch is being applied; the review is inert.
	StateSubmitting State = "submitting"
	// StateSettled: the review has its result; nothing can change it.
	StateSettled State = "settled"
)

// A Target names what a review request acts on: the whole patch (the zero Target, the
// target of whole-patch feedback and of requests on every change), an operation (File,
// from 1 in payload order), or one changing hunk of an Update (Hunk, from 1 in the order
// the rows show, locators not counted). A Move, an Add and a Delete are indivisible: they
// have no hunk targets.
type Target struct {
	File int `json:"file,omitempty"`
	Hunk int `json:"hunk,omitempty"`
}

// DiscardFeedback is the confirm function that says yes, for a request that would discard
// staged feedback ([Session.Select], [Revision.Adopt]): the feedback is dropped. A front
// end that asks the person passes its own function, which gets the question; a nil one
// declines, and the request then fails with a [ReviewError] of reason
// [ReviewNeedsConfirm] whose Prompt a front end can ask before repeating the request.
func DiscardFeedback(prompt string) bool { return true }

// A Session is the live review of one proposal: the model a front end renders
// and drives. Its [View] (rows, counts and labels) is computed from the proposal on every
// call; selection, feedback and revisions change the proposal in memory only, and only
// [Session.Submit] writes. Every method is safe for concurrent use, refuses requests it
// cannot honour with a [*ReviewError], and keeps one invariant: a selected hunk, and a
// selected Add, Delete or Move, carries no feedback.
type Session struct {
	mu       sync.Mutex
	pr       *Proposal
	state    State
	expanded map[*change]bool     // files start folded
	folded   map[*hunkChange]bool // hunks start unfolded once their file is expanded
	conflict error                // the failure of the last submission, if any
	revision *Revision            // the one open revision
	deleted  map[*change]int      // baseline line counts of Deletes

	once   sync.Once
	done   chan struct{}
	result *Result
	err    error

	// committing counts the commit of a submission in flight, which Run waits for; an
	// Abort meanwhile only sets aborting, and the commit settles the session with what
	// it did.
	committing sync.WaitGroup
	aborting   bool
}

// NewSession opens a review of a resolved proposal. Every change starts selected. It
// opens on the diff: every file expanded and, when the whole diff is longer than 80
// lines, only each file's first hunk unfolded, the others a row each, a fold away.
func NewSession(pr *Proposal) *Session {
	s := &Session{pr: pr, expanded: map[*change]bool{}, folded: map[*hunkChange]bool{}, done: make(chan struct{}), state: StateOpen}
	if pr == nil {
		s.pr = &Proposal{}
		s.fail(errNoProposal) // settled at once: there is nothing to review
		return s
	}
	s.countDeleted()
	s.firstLook()
	return s
}

// firstLookLines is the most diff lines a review shows whole when it opens.
const firstLookLines = 80

// firstLook sets the fold state a review opens with (see [NewSession]).
func (s *Session) firstLook() {
	lines := 0
	for _, c := range s.pr.changes {
		s.expanded[c] = true
		switch c.Op.Kind {
		case OpAdd:
			lines += len(c.Op.Lines)
		case OpDelete:
			lines += s.deleted[c]
		default:
			for _, h := range c.changing() {
				lines += len(h.Lines)
			}
		}
	}
	if lines <= firstLookLines {
		return
	}
	for _, c := range s.pr.changes {
		if hs := c.changing(); len(hs) > 1 {
			for _, h := range hs[1:] {
				s.folded[h] = true
			}
		}
	}
}

// countDeleted caches the line count of every Delete's baseline, which rows and tallies
// show on every render.
func (s *Session) countDeleted() {
	s.deleted = map[*change]int{}
	for _, c := range s.pr.changes {
		if c.Op.Kind == OpDelete {
			s.deleted[c] = s.pr.displayCount(c)
		}
	}
}

// Run lets rv drive the session until it settles, ctx is cancelled (the session is then
// aborted) or rv fails before settling (the session settles with its error), and returns
// the settled result. When the session settles while rv is still running, Run also waits
// for rv to return (or ctx to end), so a front end can release the terminal or finish its
// last response before the host goes on. See [Review].
func (s *Session) Run(ctx context.Context, rv Reviewer) (*Result, error) {
	if rv == nil {
		s.fail(errNilReviewer)
		return s.outcome()
	}
	errc := make(chan error, 1)
	go func() {
		defer func() { // the reviewer runs on a goroutine of ours, where the host cannot recover it
			if r := recover(); r != nil {
				errc <- fmt.Errorf("the reviewer panicked: %v", r)
			}
		}()
		errc <- rv.Review(ctx, s)
	}()
	select {
	case <-s.done:
		select { // settled while rv runs: let it finish
		case <-errc:
		case <-ctx.Done():
		}
	case <-ctx.Done():
		s.Abort()
		s.committing.Wait() // a commit under way ends first: rolled back at the cancellation, or done
	case err := <-errc:
		if ctx.Err() != nil {
			s.Abort() // the reviewer stopped for the cancellation: that is the outcome
			s.committing.Wait()
			break
		}
		if err != nil {
			s.fail(err)
			break
		}
		select {
		case <-s.done:
		case <-ctx.Done():
			s.Abort()
			s.committing.Wait()
		}
	}
	return s.outcome()
}

// errNilReviewer settles a session run without a Reviewer.
var errNilReviewer = errors.New("the review was given no Reviewer to run it; nothing was written")

// Done is closed when the session settles; [View].Result and Err then hold its outcome.
func (s *Session) Done() <-chan struct{} { return s.done }

// outcome returns the settled result and its error; before the session settles, nil and nil.
func (s *Session) outcome() (*Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result, s.err
}

// writable refuses changes unless the review is open. s.mu is held.
func (s *Session) writable(t Target) error {
	switch s.state {
	case StateSubmitting:
		return reviewErr(reviewBusy, t, "")
	case StateSettled:
		return reviewErr(reviewSettled, t, "")
	}
	return nil
}

// lookup returns the change and, for a hunk target, the hunk a target names. s.mu is held.
func (s *Session) lookup(t Target) (*change, *hunkChange, error) {
	switch {
	case t.File < 0 || t.File > len(s.pr.changes):
		return nil, nil, reviewErr(reviewUnknownTarget, t, fmt.Sprintf("the patch has %s", show.Plural(len(s.pr.changes), "operation")))
	case t.Hunk < 0 || (t.File == 0 && t.Hunk != 0):
		return nil, nil, reviewErr(reviewUnknownTarget, t, "hunks count from 1, within a file")
	}
	if t.File == 0 {
		return nil, nil, nil
	}
	c := s.pr.changes[t.File-1]
	if t.Hunk == 0 {
		return c, nil, nil
	}
	if !c.divisible() && !c.whole {
		return nil, nil, reviewErr(reviewUnknownTarget, t, "an Add, a Delete or a Move is one change; choose the file instead")
	}
	hs := c.changing()
	if t.Hunk > len(hs) {
		return nil, nil, reviewErr(reviewUnknownTarget, t, fmt.Sprintf("%s has %s", c.Op.Path, show.Plural(len(hs), "changing hunk")))
	}
	return c, hs[t.Hunk-1], nil
}

// Find returns the target of a path as authored (a Move's source or destination) and,
// when hunk is not 0, of its changing hunk with that number.
func (s *Session) Find(path string, hunk int) (Target, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := cleanPath(path)
	for i, c := range s.pr.changes {
		if cleanPath(c.Op.Path) == key || c.Op.MoveTo != "" && cleanPath(c.Op.MoveTo) == key {
			t := Target{File: i + 1, Hunk: hunk}
			if _, _, err := s.lookup(t); err != nil {
				return Target{}, err
			}
			return t, nil
		}
	}
	return Target{}, reviewErr(reviewUnknownTarget, Target{}, fmt.Sprintf("the patch does not touch %q", path))
}

// divisible reports whether the change's hunks are selected one by one: an Update that
// does not move its file.
func (c *change) divisible() bool {
	return c.Op.Kind == OpUpdate && c.Op.MoveTo == "" && !c.whole
}

// changing returns the hunks that change something, in row order; locators are left out.
func (c *change) changing() []*hunkChange {
	out := make([]*hunkChange, 0, len(c.Hunks))
	for _, h := range c.Hunks {
		if !h.isLocator() {
			out = append(out, h)
		}
	}
	return out
}
