package applypatch

import (
	"fmt"
	"strings"
)

// A PatchError lists every operation of a payload that cannot be applied, so that a model
// can fix them all in one retry. Nothing was written. Its Unwrap exposes each error to
// errors.Is and errors.As.
type PatchError struct {
	Errs []error
}

func (e *PatchError) Error() string {
	if len(e.Errs) == 1 {
		return clip(e.Errs[0].Error(), errorBudget-32) + "\nNothing was applied."
	}
	return joinProblems(fmt.Sprintf("%s problems; nothing was applied:", groupThousands(len(e.Errs))), e.Errs)
}

// Unwrap returns the errors of the failing operations.
func (e *PatchError) Unwrap() []error { return e.Errs }

// FileReason says what is wrong with a file an operation names.
type FileReason int

const (
	// FileMissing: an Update, Move or Delete names a path that does not exist.
	FileMissing FileReason = iota + 1
	// FileExists: an Add or a Move destination names a path that exists.
	FileExists
	// FileIsDir: an Update, Move or Delete names a directory.
	FileIsDir
	// FileBinary: an Update or Move names a file that looks binary.
	FileBinary
	// FileUndecodable: the file is not valid in its encoding, or the result cannot be encoded.
	FileUndecodable
	// FileUnreadable: the file could not be read.
	FileUnreadable
	// FileParentNotDir: a parent of the path is a file, not a directory.
	FileParentNotDir
)

// fileReasonText is what each reason tells the reader to do next.
var fileReasonText = map[FileReason]string{
	FileMissing:     "the file does not exist; re-read the directory, or use '*** Add File:' to create it",
	FileExists:      "the path already exists; use '*** Update File:' to change it, or choose another path",
	FileIsDir:       "the path is a directory; name a file",
	FileBinary:      "the file looks binary (it has a NUL byte in its first 8192 bytes); only text files can be patched",
	FileUndecodable: "the file cannot be read or written in its encoding",
	FileUnreadable:  "the file cannot be read",
	// FileParentNotDir is rendered with the parent that is a file.
	FileParentNotDir: "a parent of the path (%s) is a file, not a directory; choose another path",
}

// A FileError reports a path whose state does not allow its operation.
type FileError struct {
	Path   string
	Reason FileReason
	// Parent is, for FileParentNotDir, the parent of Path, as authored, that is a file.
	Parent string
	Err    error
}

func (e *FileError) Error() string {
	if e.Reason == FileParentNotDir {
		return showPath(e.Path) + ": " + fmt.Sprintf(fileReasonText[FileParentNotDir], showPath(e.Parent))
	}
	msg := showPath(e.Path) + ": " + fileReasonText[e.Reason]
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error, if any.
func (e *FileError) Unwrap() error { return e.Err }

// Is reports whether target is a *FileError with the same Reason, or with no Reason.
func (e *FileError) Is(target error) bool {
	t, ok := target.(*FileError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason)
}

// A LimitError reports a payload that asks for more than a limit allows.
type LimitError struct {
	Path  string
	What  string
	Limit int
	Got   int
}

func (e *LimitError) Error() string {
	where := ""
	if e.Path != "" {
		where = showPath(e.Path) + ": "
	}
	return fmt.Sprintf("%sthe patch asks for %d %s, over the limit of %d; split the change into smaller patches",
		where, e.Got, e.What, e.Limit)
}

// A ConflictError refuses a commit before its first write because the world is not as the
// proposal expects: nothing was written and the proposal stays usable. Reason says what
// stands in the way; deselect the paths and commit the rest, or fix what stands in the way
// and commit again, or resolve the patch again from the current files.
//
// errors.Is(err, &ConflictError{}) holds for every conflict, and
// errors.Is(err, &ConflictError{Reason: ConflictUnsaved}) for one with that reason.
type ConflictError struct {
	Reason ConflictReason
	// Paths are the paths in the way, as authored.
	Paths []string
	// Expected are, for ConflictChanged, those of Paths that still hold their baselines
	// but fail a snapshot the host supplied (Options.Expected): what the host last saw
	// there is not what the path holds.
	Expected []string
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
)

// conflictText says, by reason, what is in the way and what to do; %s is the paths.
var conflictText = map[ConflictReason]string{
	ConflictChanged: "file changed during review: %s; the patch was not applied. " +
		"Deselect the stale file to apply the rest, or reject the patch so the model re-reads it",
	ConflictNotOwned: "the host no longer owns %s; the patch was not applied. " +
		"Deselect the file to apply the rest, or reject the patch",
	ConflictUnsaved: "%s: an open editor buffer has unsaved edits; the patch was not applied. " +
		"Save or revert the buffer and commit again, or deselect the file",
}

func (e *ConflictError) Error() string {
	text, ok := conflictText[e.Reason]
	if !ok {
		text = conflictText[ConflictChanged]
	}
	return clip(fmt.Sprintf(text, strings.Join(showPaths(e.Paths), ", ")), errorBudget)
}

// Is reports whether target is a *ConflictError with the same Reason, or with no Reason.
func (e *ConflictError) Is(target error) bool {
	t, ok := target.(*ConflictError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason)
}

// An IncompleteRollbackError reports a commit that failed and could not restore every
// path. Cause is the original failure. Paths are every path (as authored, sorted)
// not at its baseline: a file this commit wrote or removed that could not be restored,
// one someone else changed meanwhile (left as they made it), a temporary file or a
// directory this commit created that could not be removed. Inspect them before retrying.
type IncompleteRollbackError struct {
	Cause error
	Paths []string
	// Reasons says, for each of Paths, why it was not restored.
	Reasons map[string]string
}

func (e *IncompleteRollbackError) Error() string {
	paths := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		paths[i] = showPath(p)
		if r := e.Reasons[p]; r != "" {
			paths[i] += " (" + r + ")"
		}
	}
	return clip(fmt.Sprintf("patch rollback incomplete: these paths were not restored: %s. "+
		"Inspect them before retrying. The commit failed because: %v", strings.Join(paths, ", "), e.Cause), errorBudget)
}

// Unwrap returns the original failure.
func (e *IncompleteRollbackError) Unwrap() error { return e.Cause }
