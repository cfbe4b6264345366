package applypatch

import (
	"context"
	"errors"
	"fmt"
)

// A RolledBackError is a commit that failed after it had started writing, and whose
// rollback restored every path it had written: nothing was applied, and the tree is as
// it was. Err is the failure; errors.Is and errors.As see through to it.
type RolledBackError struct {
	Err error
}

func (e *RolledBackError) Error() string {
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
	return &RolledBackError{Err: err}
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
