package applypatch

import (
	"context"
	"errors"
	"fmt"
)

// A RolledBackError is a commit that failed and left the tree as it was: nothing was
// applied. When Wrote is set it had started writing, and its rollback restored every
// path it had written. Err is the failure; errors.Is and errors.As see through to it.
type RolledBackError struct {
	Err   error
	Wrote bool
}

func (e *RolledBackError) Error() string {
	if !e.Wrote {
		return e.Err.Error() + "; nothing was applied"
	}
	return e.Err.Error() + "; nothing was applied: every path the commit had written was restored"
}

func (e *RolledBackError) Unwrap() error { return e.Err }

// rolledBack marks the outcome of a rollback: an *IncompleteRollbackError stays as it is,
// any other error was fully rolled back.
func rolledBack(err error) error {
	var inc *IncompleteRollbackError
	if errors.As(err, &inc) {
		return err
	}
	return &RolledBackError{Err: err, Wrote: true}
}

// A LockError is a commit or recovery that could not take the workspace's lock, or gave
// up waiting for it when its context ended. Nothing was written.
type LockError struct {
	Err error
}

func (e *LockError) Error() string {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return fmt.Sprintf("gave up waiting for another commit in this workspace to finish (%v); nothing was applied. Retry when it is done", e.Err)
	}
	return fmt.Sprintf("the workspace could not be locked (%v); nothing was applied", e.Err)
}

func (e *LockError) Unwrap() error { return e.Err }

func lockError(err error) error { return &LockError{Err: err} }

// unwritten marks a failure before the first write: the refusals that say the patch
// was not applied stay as they are; any other error is told so.
func unwritten(err error) error {
	var (
		conflict  *ConflictError
		owner     *OwnerError
		ownership *OwnershipError
		unsaved   *UnsavedBufferError
	)
	if errors.As(err, &conflict) || errors.As(err, &owner) || errors.As(err, &ownership) || errors.As(err, &unsaved) {
		return err
	}
	return &RolledBackError{Err: err}
}
