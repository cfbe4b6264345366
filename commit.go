package applypatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/afero"
)

// ErrRejected is the error of a review that selected nothing and staged no feedback.
var ErrRejected = errors.New("Patch rejected")

// Commit writes the proposal's selected changes as one transaction, in payload order
// (X3): each path is checked against its baseline before the first write and again just
// before its own (X2), replaced atomically (X4), and on any failure every written path is
// restored (X5). It returns the result for the model either way.
//
// A [*ConflictError] writes nothing and leaves the proposal usable (X7). A review that
// selected nothing returns [ErrRejected] unless feedback was staged, which is a revision
// request that writes nothing.
func Commit(ctx context.Context, pr *Proposal) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return errorResult(err), err
	}
	applied, _ := pr.tally()
	if applied == 0 {
		if pr.comments() == 0 {
			return errorResult(ErrRejected), ErrRejected
		}
		return pr.result(), nil
	}
	unlock := lockFs(pr.fsys)
	defer unlock()
	plan, err := pr.plan()
	if err != nil {
		return errorResult(err), err
	}
	if err := pr.recheck(plan); err != nil {
		return errorResult(err), err
	}
	if err := pr.checkBuffers(plan); err != nil {
		return errorResult(err), err
	}
	tx := &txn{fsys: pr.files(), opts: &pr.opts, plan: plan, guard: pr.recheckStep}
	if err := tx.run(); err != nil {
		return errorResult(err), err
	}
	pr.refreshBuffers(plan)
	return pr.result(), nil
}

// plan turns the selected changes into steps, in payload order.
func (pr *Proposal) plan() ([]*step, error) {
	var steps []*step
	var errs []error
	for _, c := range pr.Changes {
		s, err := c.steps(pr.opts.fileMode())
		if err != nil {
			errs = append(errs, err)
		}
		steps = append(steps, s...)
	}
	if len(errs) > 0 {
		return nil, &PatchError{Errs: errs}
	}
	return steps, nil
}

// steps plans one change: nothing when it is deselected, or when an Update leaves the
// bytes as they are (T4).
func (c *Change) steps(addMode fs.FileMode) ([]*step, error) {
	if !c.hasSelection() {
		return nil, nil
	}
	data, err := c.derive()
	if err != nil {
		return nil, err
	}
	src := &step{kind: stepWrite, name: c.name, path: c.Op.Path, data: data, mode: c.Base.Mode, base: c.Base}
	switch {
	case c.Op.Kind == Add:
		src.mode = addMode
		return []*step{src}, nil
	case c.Op.Kind == Delete:
		return []*step{{kind: stepRemove, name: c.name, path: c.Op.Path, base: c.Base}}, nil
	case c.Op.MoveTo != "":
		dst := &step{kind: stepWrite, name: c.moveName, path: c.Op.MoveTo, data: data, mode: c.Base.Mode, base: c.Dest}
		return []*step{dst, {kind: stepRemove, name: c.name, path: c.Op.Path, base: c.Base}}, nil
	case bytes.Equal(data, c.Base.Bytes):
		return nil, nil
	}
	return []*step{src}, nil
}

// hasSelection reports whether the change has anything selected to apply.
func (c *Change) hasSelection() bool {
	if c.Op.Kind != Update || c.Op.MoveTo != "" {
		return c.Selected
	}
	for _, h := range c.Hunks {
		if h.Selected && !h.IsLocator() {
			return true
		}
	}
	return false
}

// checkBuffers refuses to write a path whose editor buffer has unsaved edits (X6, X9).
func (pr *Proposal) checkBuffers(plan []*step) error {
	if pr.opts.Buffers == nil {
		return nil
	}
	var paths []string
	for _, st := range plan {
		if pr.opts.Buffers.Unsaved(st.name) {
			paths = append(paths, st.path)
		}
	}
	if len(paths) > 0 {
		return fmt.Errorf("%w: an open editor buffer has unsaved edits; save or revert it first",
			&ConflictError{Paths: paths})
	}
	return nil
}

// refreshBuffers reloads open, unmodified buffers of written paths the host still owns (X9).
func (pr *Proposal) refreshBuffers(plan []*step) {
	if pr.opts.Buffers == nil {
		return
	}
	for _, st := range plan {
		if pr.opts.Owner == nil || pr.opts.Owner.Owns(st.name) {
			pr.opts.Buffers.Refresh(st.name)
		}
	}
}

// Check parses and resolves a payload and reports what [Apply] would write, writing
// nothing: the result of a dry run.
func Check(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Result, error) {
	pr, err := parseResolve(ctx, fsys, payload, opts)
	if err != nil {
		return errorResult(err), err
	}
	return pr.resultAs(true), nil
}

// Apply is the common agent call: parse the payload, resolve it on fsys, and commit every
// change without interactive review. It returns the result for the model; on failure the
// result is an error result and the error says what went wrong. Nothing is written unless
// everything applies.
func Apply(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Result, error) {
	pr, err := parseResolve(ctx, fsys, payload, opts)
	if err != nil {
		return errorResult(err), err
	}
	return Commit(ctx, pr)
}

// parseResolve checks the payload size, parses and resolves.
func parseResolve(ctx context.Context, fsys afero.Fs, payload string, opts *Options) (*Proposal, error) {
	if opts == nil {
		opts = &Options{}
	}
	if limit := opts.Limits.withDefaults().Payload; len(payload) > limit {
		return nil, &LimitError{What: "payload bytes", Limit: limit, Got: len(payload)}
	}
	p, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	return Resolve(ctx, fsys, p, opts)
}
