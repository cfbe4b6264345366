package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// historyFlags are --undo, --redo and --no-history.
type historyFlags struct {
	undo, redo bool
	off        bool
}

// reverting reports whether the run is --undo or --redo.
func (h historyFlags) reverting() bool { return h.undo || h.redo }

// flag is the flag of an undo or a redo run, as typed.
func (h historyFlags) flag() string {
	if h.redo {
		return "--redo"
	}
	return "--undo"
}

// what names what the page reviews: the patch, the undo or the redo.
func (h historyFlags) what() string {
	if !h.reverting() {
		return "patch"
	}
	return h.flag()[2:]
}

// check refuses flags that do not go together, as the applypatch command does: --undo and
// --redo at once, a payload beside either (they take none), and --no-history with either
// (they read the history). args is the number of arguments after the flags.
func (h historyFlags) check(args int) error {
	switch {
	case h.undo && h.redo:
		return errors.New("--undo and --redo do not go together: run one at a time")
	case !h.reverting():
		return nil
	case args > 0:
		return fmt.Errorf("%s takes no payload", h.flag())
	case h.off:
		return fmt.Errorf("--no-history and %s do not go together: %[1]s reads the history", h.flag())
	}
	return nil
}

// open returns the workspace's history under the user's state directory, the one the
// applypatch command records in, or nil with --no-history. A history that cannot be
// opened is said on stderr; a patch is then applied without one.
func (h historyFlags) open(root string, stderr io.Writer) *applypatch.History {
	if h.off {
		return nil
	}
	hist, err := applypatch.UserHistory(root)
	if err != nil {
		fmt.Fprintln(stderr, "web: no history is kept:", err)
		return nil
	}
	return hist
}

// proposal builds the proposal of --undo or --redo, to review on the page like a patch's:
// the newest change of the history undone, or the one undone last applied again. With
// nothing to undo or redo, or no history to do it from, it returns instead the sentence
// that says so; an undo the files no longer allow is an error naming them.
func (h historyFlags) proposal(ctx context.Context, opts *applypatch.Options) (pr *applypatch.Proposal, nothing string, err error) {
	if opts.History == nil {
		return nil, "there is no history to " + h.what() + " from: it cannot be opened", nil
	}
	build := applypatch.Undo
	if h.redo {
		build = applypatch.Redo
	}
	pr, err = build(ctx, afero.NewOsFs(), opts)
	if errors.Is(err, applypatch.ErrNothingToUndo) || errors.Is(err, applypatch.ErrNothingToRedo) {
		return nil, err.Error(), nil
	}
	return pr, "", err
}
