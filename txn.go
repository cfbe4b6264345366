package applypatch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/show"

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
		return &IncompleteRollbackError{Cause: txnError(e.Cause), Paths: e.Paths, Reasons: e.Reasons, recovery: e.Recovery,
			journalKept: e.Kept}
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
func lockFor(ctx context.Context, fsys afero.Fs, opts *Options, outside []string) (func(), error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return func() {}, nil
	}
	cfg := txnConfigOf(opts)
	cfg.Outside = outside
	unlock, err := txn.Lock(ctx, fsys, f.Real(), cfg)
	if err != nil {
		return unlock, err
	}
	end := splitfs.Batch(f.Files())
	return func() {
		end()
		unlock()
	}, nil
}

// A Recovery reports what [Recover] found and did.
type Recovery struct {
	// Found is set when an interrupted commit's journal was found.
	Found bool `json:"found"`
	// Restored are the paths, as authored, put back to what they held before the
	// interrupted commit.
	Restored []string `json:"restored,omitempty"`
	// Removed counts the temporary files and directories the interrupted commit had
	// created and recovery removed, the journal not included.
	Removed int `json:"removed,omitempty"`
	// Left maps each path recovery left as it is to why: it was changed after the
	// interrupted commit wrote it, or could not be restored.
	Left map[string]string `json:"left,omitempty"`
	// Untrusted maps each entry of the workspace root named like a journal that is not
	// one this user's applypatch wrote (planted by a clone, a tarball, another user or
	// program) to why it is not: it was neither read further nor acted on, and is left
	// where it is.
	Untrusted map[string]string `json:"untrusted,omitempty"`
	// Pending is set by a dry run that found an interrupted commit and, writing
	// nothing, left it for a run that writes.
	Pending bool `json:"pending,omitempty"`

	unrecorded bool     // a journal had no record: its commit had not begun to write, or had finished
	related    []string // what recovery did in the workspaces that hold this one or that it holds
	settled    []string // what the history now says of undos and redos stopped before it could
}

// String says what was recovered, in one line: empty when there was nothing.
func (r *Recovery) String() string {
	if r == nil {
		return ""
	}
	var parts []string
	switch {
	case r.Pending:
		parts = append(parts, "an interrupted commit's journal is in the workspace; this dry run changed nothing: "+
			"run \"applypatch --recover\" (or Recover) to put back what it wrote, then check again")
	case r.Found:
		parts = append(parts, r.did())
	}
	parts = append(parts, r.related...)
	parts = append(parts, r.settled...)
	for _, n := range slices.Sorted(maps.Keys(r.Untrusted)) {
		parts = append(parts, fmt.Sprintf("left %s as it is: it is not a journal of this user's applypatch (%s), so nothing in it was acted on; "+
			"if you do not know where it came from, remove it with: rm -rf -- %s", show.Path(n), r.Untrusted[n], shellQuote(n)))
	}
	return show.Clip(strings.Join(parts, "\n"), show.ErrorBudget)
}

// did says what recovery did of a trusted journal.
func (r *Recovery) did() string {
	var b strings.Builder
	b.WriteString("recovered an interrupted commit: ")
	switch {
	case len(r.Restored) == 0 && r.unrecorded:
		b.WriteString("it had not begun to write, or had finished writing, so no path needed restoring; its journal is removed")
	case len(r.Restored) == 0:
		b.WriteString("no path had been changed")
	default:
		fmt.Fprintf(&b, "restored %s", strings.Join(show.Paths(r.Restored), ", "))
	}
	if r.Removed > 0 {
		fmt.Fprintf(&b, "; removed %d temporary files and directories it had created", r.Removed)
	}
	for _, p := range slices.Sorted(maps.Keys(r.Left)) {
		fmt.Fprintf(&b, "; left %s: %s", show.Path(p), r.Left[p])
	}
	return b.String()
}

// shellQuote quotes a name for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Recover undoes a commit that was interrupted (the process killed, the machine
// stopped) in the workspace opts describe on fsys: every path it had written is put back
// to its baseline, with its mode and owner, and the temporary files, directories and the
// journal it had created are removed, so the tree is as it was before that commit. A
// path changed by someone else since the interrupted commit wrote it is left as it is
// and reported in Recovery.Left. With no interrupted commit it does nothing and reports
// Found false. With a history in the options, it also settles an undo or a redo that
// finished before the history could say so (its process stopped, or the history not
// writable then): the history is marked from what the files hold, and the result says
// so.
//
// Only a journal this user's applypatch wrote is acted on (see Options.JournalKey); any
// other is left where it is and reported in Recovery.Untrusted. Recovery reads and
// writes only inside the workspace, through the same fence as a payload, whatever a
// journal names.
// When it cannot finish (a path cannot be restored, a file it must remove stays) it
// returns what it did with an [*IncompleteRollbackError]; run it again once the cause is
// fixed.
//
// Hosts call it when they start, before anything else touches the workspace; [Commit]
// and [Apply] also run it under their lock before they write, and say what it did in
// their result. It holds the workspace's lock while it runs, waiting for it as long as
// ctx allows.
func Recover(ctx context.Context, fsys afero.Fs, opts *Options) (*Recovery, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // cancelled before it began: no other commit to blame
	}
	related, err := recoverRelated(ctx, fsys, opts)
	if err != nil {
		return &Recovery{related: related}, err
	}
	r, err := recoverOne(ctx, fsys, opts)
	if r != nil {
		r.related = related
	}
	return r, err
}

// recoverOne is Recover of the workspace alone.
func recoverOne(ctx context.Context, fsys afero.Fs, opts *Options) (*Recovery, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, err
	}
	cfg := txnConfigOf(opts)
	key, err := txn.Key(fsys, cfg)
	if err != nil {
		return nil, err
	}
	unlock, err := txn.Lock(ctx, fsys, f.Real(), cfg)
	if err != nil {
		return nil, lockError(err)
	}
	defer unlock()
	return recoverJournal(f, key, opts)
}

// recoverFor runs recovery for Apply, which holds the lock already.
func recoverFor(fsys afero.Fs, opts *Options) (*Recovery, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return &Recovery{}, nil // Resolve reports it
	}
	key, err := txn.Key(fsys, txnConfigOf(opts))
	if err != nil {
		return &Recovery{}, err
	}
	return recoverJournal(f, key, opts)
}

// pendingFor is what a dry run says of the journals in the workspace: it reads them,
// verifies them and acts on none.
func pendingFor(fsys afero.Fs, opts *Options) *Recovery {
	r := &Recovery{}
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return r
	}
	key, err := txn.Key(fsys, txnConfigOf(opts))
	if err != nil {
		return r
	}
	return recoveryOf(txn.Pending(f, key))
}

// recoverJournal undoes each interrupted commit whose journal is in the workspace root
// (see txn.Recover). The caller holds the workspace's lock. A commit undone that way had
// not become final, though it may have noted in the history the entry it was about to
// record: that note, the newest, is forgotten, so that no undo says the change is
// missing from the history.
func recoverJournal(f *fence.Fence, key []byte, opts *Options) (*Recovery, error) {
	if err := f.Moved(); err != nil { // checked again under the lock, before any write
		return nil, err
	}
	rec, err := txn.Recover(f, key)
	if rec != nil && rec.RolledBack > 0 && opts != nil && opts.History != nil {
		if s, serr := opts.History.opened(); serr == nil {
			s.ForgetNewestIntent()
		}
	}
	r := recoveryOf(rec)
	if err == nil && r != nil {
		r.settled = settleReverts(f, opts)
	}
	return r, txnError(err)
}

// recoveryOf is the public report of what recovery found and did.
func recoveryOf(rec *txn.Recovered) *Recovery {
	if rec == nil {
		return nil
	}
	return &Recovery{Found: rec.Found, Restored: rec.Restored, Removed: rec.Removed, Left: rec.Left,
		Untrusted: rec.Untrusted, Pending: rec.Pending, unrecorded: rec.Unrecorded > 0}
}

// withRecovery puts what recovery did, or found and left, into the result the model
// reads: a note of a result, a line after an error's message.
func withRecovery(res *Result, r *Recovery) *Result {
	msg := r.String()
	if msg == "" || res == nil || slices.Contains(res.Notes, msg) {
		return res
	}
	if res.Status == StatusError {
		res.Message += "\n" + msg
		res.Notes = append(res.Notes, msg)
		return res
	}
	res.note(msg)
	return res
}

// checkExpected checks the snapshots the host expects against the baselines Resolve
// captured, for a dry run: the conflict a commit would meet if nothing changed
// meanwhile.
func (pr *Proposal) checkExpected() error {
	expected, err := pr.expectations()
	if err != nil || expected == nil {
		return err
	}
	plan, err := pr.plan()
	if err != nil {
		return err
	}
	stale := &ConflictError{Reason: ConflictChanged}
	want := expects(expected)
	for _, st := range plan {
		b := st.Base
		if !(filestate.State{Exists: b.Exists, Dir: b.Dir, Mode: b.Mode, Data: b.Bytes}).SatisfiesAll(want[st.Name]) {
			stale.Paths = appendNew(stale.Paths, st.Path)
			stale.Expected = appendNew(stale.Expected, st.Path)
		}
	}
	if len(stale.Paths) > 0 {
		return stale
	}
	return nil
}
