package applypatch

import (
	"context"
	"errors"
	"slices"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/applypatch/applypatch/internal/txn"
)

// lockError is a lock that could not be taken: a conflict, with why.
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

// conflictReasons are the public reasons of the transaction's conflicts, one to one.
var conflictReasons = map[txn.Reason]ConflictReason{
	txn.Changed:  ConflictChanged,
	txn.NotOwned: ConflictNotOwned,
	txn.Unsaved:  ConflictUnsaved,
	txn.Owner:    ConflictOwner,
}

// txnError words what the transaction found as the public error, field for field: a
// conflict, a file with several hard links, a failure that left the tree as it was, a
// rollback or recovery that could not finish, a path that could not be read. An error
// that is no fact (the guard's, a sanitised filesystem error) stays as it is.
func txnError(err error) error {
	switch e := err.(type) {
	case *txn.Conflict:
		return &ConflictError{Reason: conflictReasons[e.Reason], Paths: e.Paths, Expected: e.Expected, Reasons: e.Reasons}
	case *txn.Linked:
		return &FileError{Path: e.Path, Reason: FileLinked, Err: e.Err}
	case *txn.Unapplied:
		return &rolledBackError{Err: txnError(e.Err), Wrote: e.Wrote}
	case *txn.Incomplete:
		return &IncompleteRollbackError{Cause: txnError(e.Cause), Paths: e.Paths, Reasons: e.Reasons, recovery: e.Recovery}
	case *filestate.ReadError, *filestate.TooLarge:
		return stateError(err)
	}
	return err
}

// txnConfigOf is what the transaction is given of the host's options, once per call.
func txnConfigOf(o *Options) txn.Config {
	c := txn.Config{Sync: o.Sync, Workspace: o.workspace(), LockTimeout: o.LockTimeout, LockWait: o.LockWait,
		WorkspaceFs: o.WorkspaceFs, JournalKey: o.JournalKey}
	if o.Owner != nil {
		c.Owns = o.Owner.Owns
	}
	if o.Buffers != nil {
		c.Unsaved = o.Buffers.Unsaved
	}
	return c
}

// lockFor takes the workspace lock before a payload is resolved, for a caller that
// reviews nothing ([Apply]): it then reads the baselines a concurrent commit left, rather
// than conflicting with it. When the workspace cannot be resolved no lock is taken, and
// Resolve reports why. While the lock is held the workspace's directories are kept open
// (a batch, see fs/rootfs), so resolving and committing read and write each file
// relative to its kept directory, which no other commit renames meanwhile.
func lockFor(ctx context.Context, fsys afero.Fs, opts *Options) (func(), error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return func() {}, nil
	}
	unlock, err := txn.Lock(ctx, fsys, f.Real(), txnConfigOf(opts))
	if err != nil {
		return unlock, err
	}
	end := splitfs.Batch(f.Files())
	return func() {
		end()
		unlock()
	}, nil
}

// appendNew appends s to list unless list has it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
