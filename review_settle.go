package applypatch

import (
	"context"
	"errors"
	"fmt"
)

// Submit applies the selected changes with [Commit]. While it runs the review is
// inert. On success, or for a review that only requests revision, the session settles
// with the result. A review with nothing selected and no feedback settles as rejected
// ([ErrRejected]). Any other failure (a stale file, an incomplete rollback, a hunk that
// no longer applies) writes nothing, leaves the review open with the failure in
// [View].Conflict and returns it.
//
// When [Options].AfterCommit is set it runs after a successful commit, before the review
// settles. An [Session.Abort] meanwhile does not settle the review at once: the commit
// goes on (cancel its ctx to stop it, and it rolls back), and the review then settles with
// what it did: applied, when it completed, else aborted with nothing written.
func (s *Session) Submit(ctx context.Context) (*Result, error) {
	s.mu.Lock()
	if err := s.writable(Target{}); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.state, s.conflict = StateSubmitting, nil
	s.committing.Add(1)
	s.mu.Unlock()
	return s.commit(ctx)
}

// afterCommit runs the host's AfterCommit hook. The change is written whatever the hook
// does: a panic in it is told in the result, which the review settles with, rather than
// reported as the review's failure, which would tell the model nothing was written.
func afterCommit(ctx context.Context, hook func(context.Context, *Result), res *Result) {
	defer func() {
		if r := recover(); r != nil {
			res.note(fmt.Sprintf("The host's AfterCommit hook panicked (%v); the change is applied all the same.", r))
		}
	}()
	hook(ctx, res)
}

// commit runs the commit of a submission the caller moved to StateSubmitting, and settles
// the session or reopens it.
// The caller added the commit to s.committing.
func (s *Session) commit(ctx context.Context) (*Result, error) {
	defer s.committing.Done()
	res, err := Commit(ctx, s.pr)
	if err == nil && s.pr.opts.AfterCommit != nil {
		afterCommit(ctx, s.pr.opts.AfterCommit, res)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateSettled {
		return res, err
	}
	if s.aborting && err != nil {
		if isIncomplete(err) {
			s.settle(res, err) // what the rollback could not restore, told as it is
		} else {
			s.settle(errorResult(ErrAborted), ErrAborted) // nothing was written: the abort stands
		}
		return res, err
	}
	if err != nil && !errors.Is(err, ErrRejected) {
		s.state, s.conflict = StateOpen, err
		return res, err
	}
	res.Reviewed = true
	s.settle(res, err)
	return res, err
}

// Reject rejects the whole patch: it clears every selection and all feedback and
// settles the review with the error result "Error: Patch rejected". Nothing is written.
func (s *Session) Reject() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(Target{}); err != nil {
		return err
	}
	s.pr.feedback = ""
	for _, c := range s.pr.changes {
		c.Selected, c.Feedback = false, ""
		for _, h := range c.Hunks {
			h.Selected, h.Feedback = false, ""
		}
	}
	res := errorResult(ErrRejected)
	res.Reviewed = true
	s.settle(res, ErrRejected)
	return nil
}

// Abort tears the review down: unless it has settled, it settles now with
// "Error: Patch review aborted". It is safe to call at any time, also while a
// submission runs, and more than once.
//
// While a submission's commit runs, Abort does not settle the review: the commit settles
// it with what it did (see [Session.Submit]), and [Session.Run] waits for it.
func (s *Session) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateSubmitting {
		s.aborting = true
		return
	}
	s.settle(errorResult(ErrAborted), ErrAborted)
}

// isIncomplete reports whether err is a rollback that could not restore every path.
func isIncomplete(err error) bool {
	var ire *IncompleteRollbackError
	return errors.As(err, &ire)
}

// fail settles the session with a reviewer's failure.
func (s *Session) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(errorResult(err), err)
}

// settle records the one terminal outcome; later outcomes are ignored. s.mu is held.
func (s *Session) settle(res *Result, err error) {
	s.once.Do(func() {
		s.result, s.err, s.state = res, err, StateSettled
		s.revision = nil
		close(s.done)
	})
}
