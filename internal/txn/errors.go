package txn

import (
	"errors"
	"fmt"

	"github.com/applypatch/applypatch/internal/show"
)

// rolledBack marks the outcome of a rollback: an *Incomplete stays as it is, any other
// error was fully rolled back.
func rolledBack(err error) error {
	var inc *Incomplete
	if errors.As(err, &inc) {
		return err
	}
	return &Unapplied{Err: err, Wrote: true}
}

// unwritten marks a failure before the first write: the conflicts, which say the
// patch was not applied, stay as they are; any other error is told so.
func unwritten(err error) error {
	var conflict *Conflict
	if errors.As(err, &conflict) {
		return err
	}
	return &Unapplied{Err: err}
}

// Reason says what stands between a plan and its commit.
type Reason int

// The reasons of a conflict.
const (
	// Changed: the paths changed since their baselines were read, or fail a snapshot
	// the host expects.
	Changed Reason = iota + 1
	// NotOwned: the host no longer owns the paths.
	NotOwned
	// Unsaved: an open editor buffer of each path has unsaved edits.
	Unsaved
	// Owner: this process cannot give the paths' rewritten files their owner or group.
	Owner
)

// A Conflict refuses a step, or the whole plan before its first write. Paths are the
// paths in the way, as authored; Expected, for Changed, those that hold their
// baselines but fail a snapshot the host expects; Reasons, for Owner, why each
// path's owner cannot be kept.
type Conflict struct {
	Reason   Reason
	Paths    []string
	Expected []string
	Reasons  map[string]string
}

// Error names the paths; the caller words the public error.
func (e *Conflict) Error() string { return fmt.Sprintf("conflict %d: %v", e.Reason, e.Paths) }

// A Linked file has several hard links and could not be replaced by rename; Err is the
// sanitised cause. Nothing was written to it.
type Linked struct {
	Path string
	Err  error
}

// Error is the text of the public error the caller makes of it, word for word: a
// rollback that meets a Linked file while it restores another puts this text in its
// reason, where the caller never sees the fact (see restore).
func (e *Linked) Error() string {
	return show.Path(e.Path) + ": the file has several hard links and cannot be replaced by rename here; " +
		"rewriting it in place would change its other names too, so it was not written: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Linked) Unwrap() error { return e.Err }

// An Unapplied commit failed with Err and left the tree as it was: nothing was written,
// or (Wrote) its rollback restored every path it had written.
type Unapplied struct {
	Err   error
	Wrote bool
}

// Error is the failure's; the caller words the public error.
func (e *Unapplied) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *Unapplied) Unwrap() error { return e.Err }

// An Incomplete rollback, or recovery (Recovery), could not put every path back. Cause
// is the original failure; Paths, sorted, every path not at its baseline, and Reasons why.
type Incomplete struct {
	Cause    error
	Paths    []string
	Reasons  map[string]string
	Recovery bool
	// Kept is set when the commit's journal stays, with the baselines of the paths not
	// restored, for a later recovery to finish the rollback.
	Kept bool
}

// Error is the cause's; the caller words the public error.
func (e *Incomplete) Error() string { return "incomplete: " + e.Cause.Error() }

// Unwrap returns the original failure.
func (e *Incomplete) Unwrap() error { return e.Cause }
