package applypatch

import (
	"context"

	"github.com/spf13/afero"
)

// Undo reverts the newest change the history in Options.History holds that is not
// undone (see [Undo]), settled as [Tool.Call] settles a patch. In ModeEdits and
// ModeFullAuto it is committed at once, and the history and the files are read under
// the commit's lock: an undo called while another call commits waits for it, then
// reverts the newest change, which may be that one. In ModeAsk the Reviewer shows it
// to a person first. It returns the result for the model: what was reverted, or why
// nothing was ([ErrNothingToUndo], a refusal naming the files changed since).
func (t *Tool) Undo(ctx context.Context) (*Result, error) {
	return t.call(ctx, func() (*Proposal, error) { return t.revert(ctx, Undo) })
}

// Redo applies again the change the last undo reverted (see [Redo]), settled as
// [Tool.Undo] settles an undo. With nothing to redo it returns [ErrNothingToRedo].
func (t *Tool) Redo(ctx context.Context) (*Result, error) {
	return t.call(ctx, func() (*Proposal, error) { return t.revert(ctx, Redo) })
}

// revert builds the undo's or the redo's proposal on FS.
func (t *Tool) revert(ctx context.Context, build func(context.Context, afero.Fs, *Options) (*Proposal, error)) (*Proposal, error) {
	if t.FS == nil {
		return nil, errNoFS
	}
	return build(ctx, t.FS, &t.Options)
}
