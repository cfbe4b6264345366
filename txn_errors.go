package applypatch

import (
	"errors"
)

// rolledBack marks the outcome of a rollback: an *IncompleteRollbackError stays as it is,
// any other error was fully rolled back.
func rolledBack(err error) error {
	var inc *IncompleteRollbackError
	if errors.As(err, &inc) {
		return err
	}
	return &rolledBackError{Err: err, Wrote: true}
}

func lockError(err error) error { return &ConflictError{Reason: ConflictLocked, Err: err} }

// unwritten marks a failure before the first write: the refusals that say the patch
// was not applied stay as they are; any other error is told so.
func unwritten(err error) error {
	var conflict *ConflictError
	if errors.As(err, &conflict) {
		return err
	}
	return &rolledBackError{Err: err}
}
