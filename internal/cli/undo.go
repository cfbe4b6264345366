package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/internal/dryrun"
	"github.com/applypatch/applypatch/internal/reviewscript"
	"github.com/spf13/afero"
)

// history is the workspace's history under the user's state directory, or nil with
// --no-history. A history that cannot be opened is said on stderr; the run goes on
// without one.
func (cfg *config) history(root string) *applypatch.History {
	if cfg.noHistory {
		return nil
	}
	if !cfg.histOpened {
		cfg.histOpened = true
		h, err := applypatch.UserHistory(root)
		if err != nil {
			fmt.Fprintln(cfg.stderr, "applypatch: no history is kept:", strings.TrimPrefix(err.Error(), "applypatch: "))
			return nil
		}
		cfg.hist = h
	}
	return cfg.hist
}

// revertOnly is --undo and --redo: the newest change of the history undone, or the one
// undone last applied again, as a proposal reviewed, checked or committed like a patch.
func (cfg *config) revertOnly(ctx context.Context, root string, confined afero.Fs, script *reviewscript.Script, stdout, stderr io.Writer) int {
	opts := cfg.options(root, confined)
	if opts.History == nil {
		fmt.Fprintln(stdout, "there is no history to "+cfg.revertVerb()+" from: it is off (--no-history) or cannot be opened")
		return exitRejected
	}
	if !cfg.check && script == nil {
		return cfg.revertNow(ctx, opts, stdout, stderr)
	}
	build := applypatch.Undo
	if cfg.redo {
		build = applypatch.Redo
	}
	if cfg.check {
		ctx = dryrun.With(ctx) // a change already put back is reported, not marked
	}
	pr, err := build(ctx, hostFs(), opts)
	if errors.Is(err, applypatch.ErrNothingToUndo) || errors.Is(err, applypatch.ErrNothingToRedo) {
		return cfg.nothing(err, stdout, stderr)
	}
	if err != nil {
		return report(applypatch.ErrorResult(err), err, cfg, stdout, stderr)
	}
	var res *applypatch.Result
	switch {
	case cfg.check:
		res = pr.Preview()
		if cfg.diff {
			cfg.unified, err = proposalDiff(pr, hostFs(), opts, res)
		}
	case script != nil:
		res, err = applypatch.Review(ctx, pr, script)
	default:
		res, err = applypatch.Commit(ctx, pr)
	}
	if err != nil {
		res = applypatch.ErrorResult(err)
	}
	res, err = cfg.explain(res, err)
	return report(res, err, cfg, stdout, stderr)
}

// revertNow is --undo and --redo with no review and no check: the history picked, the
// files read and the revert committed under one hold of the workspace's lock, as a
// payload is applied, so that a commit in flight is waited for rather than conflicted
// with.
func (cfg *config) revertNow(ctx context.Context, opts *applypatch.Options, stdout, stderr io.Writer) int {
	opts.Mode = applypatch.ModeEdits // nobody reviews; outside paths still need their flags
	t := &applypatch.Tool{FS: hostFs(), Options: *opts}
	run := t.Undo
	if cfg.redo {
		run = t.Redo
	}
	res, err := run(ctx)
	if errors.Is(err, applypatch.ErrNothingToUndo) || errors.Is(err, applypatch.ErrNothingToRedo) {
		return cfg.nothing(err, stdout, stderr)
	}
	res, err = cfg.explain(res, err)
	return report(res, err, cfg, stdout, stderr)
}

// nothing reports an undo or a redo with nothing to do: one plain sentence, or with
// --json the error result, and exit 1 either way.
func (cfg *config) nothing(err error, stdout, stderr io.Writer) int {
	if cfg.json {
		return report(applypatch.ErrorResult(err), err, cfg, stdout, stderr)
	}
	fmt.Fprintln(stdout, err.Error())
	return exitRejected
}

// revertVerb is "undo" or "redo".
func (cfg *config) revertVerb() string {
	if cfg.redo {
		return "redo"
	}
	return "undo"
}

// historyOnly is --history: the workspace's recorded changes, newest first, one a line
// (with --json, as a JSON array).
func (cfg *config) historyOnly(root string, stdout io.Writer) int {
	h := cfg.history(root)
	if h == nil {
		fmt.Fprintln(stdout, "there is no history: it is off (--no-history) or cannot be opened")
		return exitRejected
	}
	list, err := h.Entries()
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "the history ") {
			msg = "the history cannot be read: " + msg
		}
		fmt.Fprintln(stdout, msg)
		return exitRejected
	}
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(list)
		return exitApplied
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no change applied in this workspace is recorded")
	}
	for _, e := range list {
		fmt.Fprintln(stdout, e.String())
	}
	return exitApplied
}
