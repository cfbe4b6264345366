package applypatch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/applypatch/applypatch/internal/txn"
)

// Commit writes the proposal's selected changes as one transaction, in payload order:
// each path is checked against its baseline and any snapshot the host expects for
// the whole batch before the first write and again just before its own, replaced
// atomically, and on any failure every written path is restored. It returns
// the result for the model either way.
//
// A [*ConflictError] (a stale path, a path the host no longer owns, an editor buffer with
// unsaved edits) is found before the first write: nothing is written and the proposal
// stays usable: deselect the path, or fix it, and commit again. A
// failure after a write is rolled back; a path rollback cannot restore, or finds changed
// by someone else, makes the error an [*IncompleteRollbackError]; any other error
// after the first write means every written path was restored. A path whose owner
// this process could not keep is refused with a [*ConflictError] before any write.
//
// Commit holds the workspace's lock (see [Options]) from its check through its
// last write and any rollback, waiting for it as long as ctx allows; a commit that
// finds its baselines changed by the one it waited for reports a conflict. Before its
// first write it records a journal that [Recover] uses to undo it if the process dies
// midway; a commit first recovers any journal left by an interrupted one. A review that
// selected nothing returns [ErrRejected] unless feedback was staged, which is a revision
// request that writes nothing.
func Commit(ctx context.Context, pr *Proposal) (*Result, error) {
	if pr == nil {
		return errorResult(errNoProposal), errNoProposal
	}
	if err := ctx.Err(); err != nil {
		err = unwritten(err)
		return errorResult(err), err
	}
	applied, _ := pr.tally()
	if applied == 0 {
		if pr.comments() == 0 {
			return errorResult(ErrRejected), ErrRejected
		}
		return pr.result(), nil
	}
	f, err := pr.fencer()
	if err != nil {
		return errorResult(err), err
	}
	related, err := recoverRelated(ctx, pr.fsys, &pr.opts)
	if err != nil {
		return withRecovery(errorResult(err), &Recovery{related: related}), err
	}
	cfg := txnConfigOf(&pr.opts)
	cfg.Outside = pr.outsideDirs()
	unlock, err := txn.Lock(ctx, pr.fsys, f.Real(), cfg)
	if err != nil {
		err = lockError(err)
		return errorResult(err), err
	}
	defer unlock()
	defer splitfs.Batch(pr.files())() // directories kept open only while the lock is held
	res, err := pr.commitLocked(ctx)
	return withRecovery(res, &Recovery{related: related}), err
}

// commitLocked is Commit with the workspace's lock held.
func (pr *Proposal) commitLocked(ctx context.Context) (*Result, error) {
	f, err := pr.fencer()
	if err != nil {
		return errorResult(err), err
	}
	cfg := txnConfigOf(&pr.opts)
	key, err := txn.Key(pr.fsys, cfg)
	if err != nil {
		return errorResult(err), err
	}
	rec, err := recoverJournal(f, key, &pr.opts)
	if err != nil {
		return errorResult(err), err
	}
	plan, err := pr.plan()
	if err != nil {
		return errorResult(err), err
	}
	expected, err := pr.expectations()
	if err != nil {
		return errorResult(err), err
	}
	if err := pr.recheckBatch(plan); err != nil {
		return errorResult(err), err
	}
	if err := pr.checkBuffers(plan); err != nil {
		return errorResult(err), err
	}
	if err := pr.stillReverting(); err != nil {
		return errorResult(err), err
	}
	if pr.read == nil {
		pr.read = filestate.Stamps{} // a proposal restored from JSON
	}
	cfg.Fs, cfg.Root, cfg.Key, cfg.Fence = pr.files(), f.Real(), key, f
	cfg.Guard, cfg.Expected, cfg.Seen, cfg.Captured = pr.recheckStep, expects(expected), pr.read, pr.readLocked
	id := newEntryID() // the history entry's, when one is recorded
	var kept *keptBaselines
	cfg.Keep = pr.keeper(plan, &kept, id)
	var made []string
	h := pr.opts.History
	if len(plan) == 0 {
		h = nil // a commit that writes nothing records nothing, and sweeps nothing
	}
	spent, swept := func() {}, func() {}
	if h != nil {
		if sweepBeside(plan) {
			swept = h.sweepStart()
		}
		defer func() { h.sweepStart()() }()
		spent = h.spentStart()
		defer spent()
	}
	if h != nil && pr.reverts == nil {
		cfg.Made = func(dirs []string) { made = dirs }
		cfg.BeforeFinal = pr.intend(id)
	}
	if pr.reverts != nil && len(plan) > 0 {
		cfg.BeforeFinal = pr.noteRevert(plan)
	}
	cfg.BeforeFinal = before(spent, before(swept, cfg.BeforeFinal))
	ahead := pr.resultAhead()
	defer ahead.wait() // also when a host's callback panics midway
	if err := txnError(txn.Run(ctx, plan, cfg)); err != nil {
		ahead.wait()
		pr.intended(id)
		pr.dropRevertNote()
		return withRecovery(errorResult(err), rec), err
	}
	if h != nil && !sweepBeside(plan) {
		h.sweepStart() // a commit of few steps sweeps now, beside its entry
	}
	res := withRecovery(ahead.take(pr), rec)
	pr.recordHistory(plan, res, kept, made, id)
	pr.refreshBuffers(plan, res)
	return res, nil
}

// plan turns the selected changes into steps, in payload order.
func (pr *Proposal) plan() ([]*txn.Step, error) {
	var steps []*txn.Step
	var errs []error
	for _, c := range pr.changes {
		s, err := c.steps(pr.opts.fileMode())
		if err != nil {
			errs = append(errs, err)
		}
		steps = append(steps, s...)
	}
	if len(errs) > 0 {
		return nil, &patchError{errs: errs}
	}
	return steps, nil
}

// steps plans one change: nothing when it is deselected, or when an Update leaves the
// bytes as they are.
func (c *change) steps(addMode fs.FileMode) ([]*txn.Step, error) {
	if !c.hasSelection() {
		return nil, nil
	}
	body, err := c.content()
	if err != nil {
		return nil, err
	}
	src := &txn.Step{Op: txn.Write, Name: c.name, Path: c.Op.Path, Body: body, Mode: c.Base.Mode, Base: c.Base}
	switch {
	case c.Op.Kind == OpAdd:
		src.Mode = c.addMode(addMode)
		return []*txn.Step{src}, nil
	case c.Op.Kind == OpDelete:
		return []*txn.Step{{Op: txn.Remove, Name: c.name, Path: c.Op.Path, Base: c.Base}}, nil
	case c.Op.MoveTo != "":
		dst := &txn.Step{Op: txn.Write, Name: c.moveName, Path: c.Op.MoveTo, Body: body, Mode: c.Base.Mode, Base: c.Dest, From: c.name}
		return []*txn.Step{dst, {Op: txn.Remove, Name: c.name, Path: c.Op.Path, Base: c.Base}}, nil
	case body.Equal(c.Base.Bytes):
		return nil, nil
	}
	return []*txn.Step{src}, nil
}

// addMode is the mode an Add writes its file with: the options' mode, or for an undone
// Delete the mode the file had.
func (c *change) addMode(opts fs.FileMode) fs.FileMode {
	if c.undoSpec != nil {
		return c.undoSpec.mode
	}
	return opts
}

// checkBuffers refuses to write a path whose open editor buffer has unsaved edits:
// the commit would otherwise overwrite them, or they the commit.
func (pr *Proposal) checkBuffers(plan []*txn.Step) error {
	if pr.opts.Buffers == nil {
		return nil
	}
	var paths []string
	for _, st := range plan {
		if pr.opts.Buffers.Unsaved(st.Name) {
			paths = appendNew(paths, st.Path)
		}
	}
	if len(paths) > 0 {
		return &ConflictError{Reason: ConflictUnsaved, Paths: paths}
	}
	return nil
}

// refreshBuffers reloads the open, unmodified buffers of the paths the commit wrote or
// removed and the host still owns. A buffer that gained unsaved edits while
// the commit ran is kept as it is, and it and any failed refresh are noted in the
// result; the files are written either way.
func (pr *Proposal) refreshBuffers(plan []*txn.Step, res *Result) {
	hook := pr.opts.Buffers
	if hook == nil {
		return
	}
	for _, st := range plan {
		switch {
		case pr.opts.Owner != nil && !pr.opts.Owner.Owns(st.Name):
		case hook.Unsaved(st.Name):
			res.note("Buffer kept: " + st.Path + " has unsaved edits in an open editor; saving them would overwrite the applied change")
		default:
			if err := hook.Refresh(st.Name); err != nil {
				res.note("Buffer not refreshed: " + st.Path + ": " + fserr.Sanitize(err, st.Name, st.Path).Error())
			}
		}
	}
}

// Check parses and resolves a payload and reports what [Apply] would write, writing
// nothing: the result of a dry run. A path that fails a snapshot the host expects
// (Options.Expected) is the [*ConflictError] Apply would meet.
func Check(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Result, error) {
	pr, err := ResolvePayload(ctx, fsys, payload, opts)
	if err == nil {
		err = pr.checkExpected()
	}
	pending := pendingFor(fsys, opts)
	if err != nil {
		return withRecovery(errorResult(err), pending), err
	}
	return withRecovery(pr.resultAs(true), pending), nil
}

// Apply is the common agent call: parse the payload, resolve it on fsys, and commit every
// change without interactive review. It takes the workspace's lock before it reads the
// baselines, so two concurrent Apply calls of compatible patches both apply, the second
// on what the first wrote. It returns the result for the model; on failure the
// result is an error result and the error says what went wrong. Nothing is written unless
// everything applies.
func Apply(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Result, error) {
	if fsys == nil {
		return errorResult(errNoFs), errNoFs
	}
	return applyUnderLock(ctx, fsys, opts, func() (*Proposal, error) {
		return ResolvePayload(ctx, fsys, payload, opts)
	})
}

// applyUnderLock takes the workspace's lock, recovers any journal an interrupted commit
// left, and only then resolves (propose) and commits: the baselines are read under the
// same lock the commit holds, so a concurrent commit is waited for, never conflicted
// with. It serves every caller that reviews nothing ([Apply], a Tool that need not ask).
//
// A proposal that writes outside the workspace (where the host allows it) is committed as
// a reviewed one is: under a lock that holds those directories too, each as a workspace
// of its own, so that a commit in another workspace that writes there waits for this
// one, and with every baseline checked again.
func applyUnderLock(ctx context.Context, fsys afero.Fs, opts *Options, propose func() (*Proposal, error)) (*Result, error) {
	if err := ctx.Err(); err != nil { // cancelled before it began: no other commit to blame
		err = unwritten(err)
		return errorResult(err), err
	}
	related, err := recoverRelated(ctx, fsys, opts)
	if err != nil {
		return withRecovery(errorResult(err), &Recovery{related: related}), err
	}
	locked, err := lockFor(ctx, fsys, opts, nil)
	if err != nil {
		err = lockError(err)
		return errorResult(err), err
	}
	unlock := sync.OnceFunc(locked)
	defer unlock() // also when a host's callback (an Authorizer, an Encoding) panics
	rec, err := recoverFor(fsys, opts)
	if rec != nil {
		rec.related = related
	}
	if err != nil {
		return withRecovery(errorResult(err), rec), err
	}
	pr, err := propose()
	if err == nil && len(pr.outsideDirs()) > 0 {
		unlock()
		res, err := Commit(ctx, pr)
		return withRecovery(res, rec), err
	}
	res, err := commitResolved(ctx, pr, err)
	return withRecovery(res, rec), err
}

// outsideDirs are the directories outside the workspace the proposal writes in, as real
// names: for each such path, the nearest directory above it that exists. They are those
// of the operating system's filesystem; another filesystem's lock covers all of it.
func (pr *Proposal) outsideDirs() []string {
	if _, ok := pr.fsys.(*afero.OsFs); !ok {
		return nil
	}
	var out []string
	add := func(class Class, name string) {
		if class != ClassOutside || name == "" {
			return
		}
		if d := existingDir(name); d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, c := range pr.changes {
		add(c.Class, c.name)
		add(c.MoveClass, c.moveName)
	}
	return out
}

// existingDir is the nearest directory above name, on the operating system, that
// exists, or "".
func existingDir(name string) string {
	for d := filepath.Dir(name); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// commitResolved commits a proposal resolved with the lock held and recovery done.
func commitResolved(ctx context.Context, pr *Proposal, err error) (*Result, error) {
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			err = unwritten(err) // cancelled before the commit began
		}
		return errorResult(err), err
	}
	if applied, _ := pr.tally(); applied == 0 {
		return Commit(ctx, pr)
	}
	pr.readLocked = true // read under this lock, with nothing written since
	return pr.commitLocked(ctx)
}

// ResolvePayload is [Parse] then [Resolve] for a payload text, after checking its size
// against Options.Limits: the entry for a host that reviews a payload before it
// commits it, as [Apply] is for one that does not. Nothing is written.
func ResolvePayload(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Proposal, error) {
	if opts == nil {
		opts = &Options{}
	}
	if limit := opts.Limits.withDefaults().Payload; len(payload) > limit {
		return nil, overLimit("the patch has %s bytes", len(payload), limit, false)
	}
	p, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	pr, err := resolve(ctx, fsys, p, opts, true)
	if pr != nil {
		pr.payload = payload
	}
	return pr, err
}
