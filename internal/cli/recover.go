package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/applypatch/applypatch"
)

// nothingToRecover is what --recover prints when no commit was left interrupted.
const nothingToRecover = "nothing to recover: no commit was left interrupted in the workspace"

// recoverWorkspace undoes a commit an earlier run left interrupted (killed, or the
// machine stopped) before this run reads anything. What it did is a diagnostic of this
// run, said on stderr; the run's result is the patch's.
// opts name the workspace and how to wait for its lock.
func recoverWorkspace(ctx context.Context, opts *applypatch.Options, stderr io.Writer) (*applypatch.Recovery, error) {
	r, err := applypatch.Recover(ctx, hostFs(), opts)
	if msg := r.String(); msg != "" {
		fmt.Fprintln(stderr, "applypatch:", msg)
	}
	return r, err
}

// recoverOnly is --recover: recovery and nothing else. What was done is its result, so
// it is printed on stdout like every result. It exits 0 whether or not there was
// anything to recover, 1 when recovery could not finish or left a path it could not
// restore.
func recoverOnly(ctx context.Context, opts *applypatch.Options, stdout io.Writer) int {
	r, err := applypatch.Recover(ctx, hostFs(), opts)
	msg := r.String()
	if msg == "" && err == nil {
		msg = nothingToRecover
	}
	if msg != "" {
		fmt.Fprintln(stdout, msg)
	}
	if err != nil {
		fmt.Fprintln(stdout, applypatch.ErrorResult(err).Text())
	}
	if err != nil || len(r.Left) > 0 {
		return exitRejected
	}
	return exitApplied
}

// withRecovered puts what the run's recovery did into the result the model reads, as
// the library's own entry points do: a note of a result, a line of an error's message.
func withRecovered(res *applypatch.Result, msg string) {
	switch {
	case msg == "" || res == nil || slices.Contains(res.Notes, msg):
	case res.Status == applypatch.StatusError:
		res.Message += "\n" + msg
		res.Notes = append(res.Notes, msg)
	default:
		res.Items = append(res.Items, msg)
		res.Notes = append(res.Notes, msg)
	}
}
