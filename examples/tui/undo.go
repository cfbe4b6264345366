package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// reverting reports whether the run is --undo or --redo.
func (cfg *config) reverting() bool { return cfg.undo || cfg.redo }

// revertFlag is the flag of an undo or a redo run, as typed.
func (cfg *config) revertFlag() string {
	if cfg.redo {
		return "--redo"
	}
	return "--undo"
}

// checkModes refuses flags that do not go together, as the applypatch command does: --undo
// and --redo at once, a payload or --stream beside either (they take none), and
// --no-history with either (they read the history).
func (cfg *config) checkModes() error {
	switch {
	case cfg.undo && cfg.redo:
		return errors.New("--undo and --redo do not go together: run one at a time")
	case !cfg.reverting():
		return nil
	case len(cfg.args) > 0:
		return fmt.Errorf("%s takes no payload", cfg.revertFlag())
	case cfg.stream:
		return fmt.Errorf("%s takes no payload: --stream reads one", cfg.revertFlag())
	case cfg.noHistory:
		return fmt.Errorf("--no-history and %s do not go together: %[1]s reads the history", cfg.revertFlag())
	}
	return nil
}

// history is the workspace's history under the user's state directory, the one the
// applypatch command records in, or nil with --no-history. A history that cannot be opened
// is said on stderr; a patch is then applied without one.
func (cfg *config) history(root string, stderr io.Writer) *applypatch.History {
	if cfg.noHistory {
		return nil
	}
	h, err := applypatch.UserHistory(root)
	if err != nil {
		fmt.Fprintln(stderr, "tui: no history is kept:", err)
		return nil
	}
	return h
}

// revert is --undo and --redo: the newest change of the history undone, or the one undone
// last applied again, as a proposal reviewed on the terminal like a patch's and printed
// the same way. Nothing to undo or redo is said in one sentence, with exit code 1; an undo
// the files no longer allow is refused, naming them, before any review.
func (cfg *config) revert(ctx context.Context, opts *applypatch.Options, rv applypatch.Reviewer, stdout io.Writer) int {
	verb := cfg.revertFlag()[2:]
	if opts.History == nil {
		fmt.Fprintf(stdout, "there is no history to %s from: it cannot be opened\n", verb)
		return exitRejected
	}
	build := applypatch.Undo
	if cfg.redo {
		build = applypatch.Redo
	}
	pr, err := build(ctx, afero.NewOsFs(), opts)
	if errors.Is(err, applypatch.ErrNothingToUndo) || errors.Is(err, applypatch.ErrNothingToRedo) {
		fmt.Fprintln(stdout, err.Error())
		return exitRejected
	}
	if err != nil {
		return report(applypatch.ErrorResult(err), err, cfg.json, stdout)
	}
	res, err := applypatch.Review(ctx, pr, rv)
	return report(res, err, cfg.json, stdout)
}
