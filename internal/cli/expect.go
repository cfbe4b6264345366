package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/applypatch/applypatch"
)

// reworded is a library error told in the command's own terms.
type reworded struct {
	msg string
	err error
}

func (e *reworded) Error() string { return e.msg }

// Unwrap returns the library's error.
func (e *reworded) Unwrap() error { return e.err }

// reword returns what to say instead of a library error that came from --expect, or "".
// Without a review script there is nothing to deselect, so a conflict says what to do
// here: re-read the file.
func (cfg *config) reword(err error) string {
	var ce *applypatch.ConflictError
	if errors.As(err, &ce) && ce.Reason == applypatch.ConflictNotInPatch {
		return "--expect names " + strings.Join(ce.Paths, ", ") + ", which the patch does not change; check the path"
	}
	if cfg.reviewScript != "" || !errors.As(err, &ce) || len(ce.Expected) == 0 {
		return ""
	}
	why := make([]string, len(ce.Paths))
	for i, p := range ce.Paths {
		why[i] = p + " changed while the patch was applied; re-read it"
		if slices.Contains(ce.Expected, p) {
			why[i] = p + " no longer has the expected SHA-256; re-read it"
		}
	}
	return "the patch was not applied: " + strings.Join(why, "; ")
}
