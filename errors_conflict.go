package applypatch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/show"
)

// A ConflictError refuses a commit before its first write because the world is not as the
// proposal, or the host, expects: nothing was written and the proposal stays usable.
// Reason says what stands in the way; deselect the paths and commit the rest, or fix what
// stands in the way and commit again, or resolve the patch again from the current files.
// Resolve and Check report ConflictNotInPatch too, before there is a proposal.
//
// errors.Is(err, &ConflictError{}) holds for every conflict, and
// errors.Is(err, &ConflictError{Reason: ConflictUnsaved}) for one with that reason.
type ConflictError struct {
	Reason ConflictReason
	// Paths are the paths in the way, as authored; none for ConflictLocked. For
	// ConflictNotInPatch they are the keys of Options.Expected that name no path of the
	// payload, sorted, as the host gave them; the error's text shows those inside the
	// workspace relative to it, and no other host path.
	Paths []string
	// Expected are, for ConflictChanged, those of Paths that still hold their baselines
	// but fail a snapshot the host supplied (Options.Expected): what the host last saw
	// there is not what the path holds.
	Expected []string
	// Reasons say, for ConflictOwner, why each path's owner cannot be kept.
	Reasons map[string]string
	// Err is, for ConflictLocked, why the lock could not be taken (the context's error
	// when the wait ended); for a ConflictChanged of an [Undo] or a [Redo], set where the
	// history changed since it was proposed (another change, undo or redo was applied),
	// that change.
	Err error

	shown []string // for ConflictNotInPatch, Paths as the text shows them
}

// ConflictReason says what stands between a proposal and its commit.
type ConflictReason int

const (
	// ConflictChanged: the paths changed since their baselines were captured, or do not
	// match a snapshot the host expects (Options.Expected).
	ConflictChanged ConflictReason = iota + 1
	// ConflictNotOwned: the host no longer owns the paths (Options.Owner).
	ConflictNotOwned
	// ConflictUnsaved: an open editor buffer of each path has unsaved edits
	// (Options.Buffers).
	ConflictUnsaved
	// ConflictOwner: the paths' files would be written anew, and this process cannot
	// give the new files their owner or group.
	ConflictOwner
	// ConflictLocked: another commit holds the workspace's lock, and the wait for it
	// ended with the context; or the lock could not be taken at all.
	ConflictLocked
	// ConflictNotInPatch: the host expects snapshots (Options.Expected) of paths the
	// payload does not name; a key meant for one of its paths that spells another would
	// otherwise check nothing.
	ConflictNotInPatch
)

// conflictText says, by reason, what is in the way and what to do; %s is the paths.
var conflictText = map[ConflictReason]string{
	ConflictChanged: "file changed during review: %s; the patch was not applied. " +
		"Deselect the stale file to apply the rest, or reject the patch so the model re-reads it",
	ConflictNotOwned: "the host no longer owns %s; the patch was not applied. " +
		"Deselect the file to apply the rest, or reject the patch",
	ConflictUnsaved: "%s: an open editor buffer has unsaved edits; the patch was not applied. " +
		"Save or revert the buffer and commit again, or deselect the file",
	ConflictOwner: "%sthe patch was not applied. " +
		"Run as the file's owner (or with the right to change owners), or deselect the file",
	ConflictNotInPatch: "the host expects snapshots of paths the patch does not name: %s; the patch was not applied. " +
		"Key each snapshot by a path the patch adds, updates, moves or deletes",
}

func (e *ConflictError) Error() string {
	switch e.Reason {
	case ConflictLocked:
		if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
			return fmt.Sprintf("gave up waiting for another commit in this workspace to finish (%v); nothing was applied. Retry when it is done", e.Err)
		}
		return fmt.Sprintf("the workspace could not be locked (%v); nothing was applied", e.Err)
	case ConflictOwner:
		return fmt.Sprintf(conflictText[ConflictOwner], show.Clip(byReason(e.Paths, e.Reasons), show.ErrorBudget-256))
	case ConflictChanged:
		if e.Err != nil {
			return e.Err.Error() // an undo or a redo whose history changed since
		}
	case ConflictNotInPatch:
		shown := e.shown
		if shown == nil {
			shown = e.Paths
		}
		return show.Clip(fmt.Sprintf(conflictText[ConflictNotInPatch], strings.Join(shown, ", ")), show.ErrorBudget)
	}
	text, ok := conflictText[e.Reason]
	if !ok {
		text = conflictText[ConflictChanged]
	}
	return show.Clip(fmt.Sprintf(text, strings.Join(show.Paths(e.Paths), ", ")), show.ErrorBudget)
}

// byReason lists paths with their reasons, the paths that share a reason together, each
// reason once with its first few paths and how many more there are: a refusal of
// thousands of files for one reason stays a line.
func byReason(paths []string, reasons map[string]string) string {
	var order []string
	group := map[string][]string{}
	for _, p := range paths {
		r := reasons[p]
		if _, ok := group[r]; !ok {
			order = append(order, r)
		}
		group[r] = append(group[r], show.Path(p))
	}
	var b strings.Builder
	for _, r := range order {
		ps := group[r]
		shown := strings.Join(ps[:min(len(ps), listedPaths)], ", ")
		if len(ps) > listedPaths {
			shown += fmt.Sprintf(" and %s more", show.Thousands(len(ps)-listedPaths))
		}
		fmt.Fprintf(&b, "%s: %s; ", shown, r)
	}
	return b.String()
}

// listedPaths is how many paths byReason names for one reason.
const listedPaths = 5

// Unwrap returns Err: for ConflictLocked, why the lock could not be taken.
func (e *ConflictError) Unwrap() error { return e.Err }

// Is reports whether target is a *ConflictError with the same Reason, or with no Reason.
func (e *ConflictError) Is(target error) bool {
	t, ok := target.(*ConflictError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason)
}
