package applypatch

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/show"
)

// patchError lists every operation of a payload that cannot be applied, so that a model
// can fix them all in one retry; nothing was written. It joins its errors the way
// errors.Join does, so errors.Is and errors.As find each, and its Unwrap() []error lists
// them; its text numbers them and says nothing was applied.
type patchError struct {
	errs []error
}

func (e *patchError) Error() string {
	if len(e.errs) == 1 {
		return show.Clip(e.errs[0].Error(), show.ErrorBudget-32) + "\nNothing was applied."
	}
	head := fmt.Sprintf("%s problems; nothing was applied:", show.Thousands(len(e.errs)))
	if e.allApplied() {
		head = fmt.Sprintf("The patch looks already applied: for each of its %s hunks the file lacks the old "+
			"lines (context and '-') and holds the new ones (context and '+'). Nothing was applied; re-read "+
			"the files before patching again:", show.Thousands(len(e.errs)))
	}
	return show.JoinProblems(head, e.errs)
}

// allApplied reports whether every problem is a hunk that looks applied already.
func (e *patchError) allApplied() bool {
	for _, err := range e.errs {
		if m, ok := err.(*MatchError); !ok || m.appliedAt == 0 {
			return false
		}
	}
	return true
}

func (e *patchError) Unwrap() []error { return e.errs }

// FileReason says why a path an operation names cannot be used as it asks.
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
	// FileUnreadable: the file could not be read, or its path could not be resolved (a loop
	// of symbolic links, an unreadable directory).
	FileUnreadable
	// FileParentNotDir: a parent of the path is a file, not a directory.
	FileParentNotDir
	// FileLinked: the file has several hard links and cannot be replaced by rename here;
	// rewriting it in place would change its other names too. The commit was rolled back.
	FileLinked
	// FileForbidden: the path is forbidden; no mode, rule or Authorizer allows it.
	FileForbidden
	// FileUnauthorized: the path is outside or protected, and neither an allow rule nor the
	// Authorizer allowed it.
	FileUnauthorized
	// FileAliased: the path is the same file as another path of the payload (Other), through
	// a link or spelled another way (relative and absolute).
	FileAliased
	// FileRedirected: at commit, the path no longer resolves where it did when it was
	// classified (a link was created, removed or swapped). A commit reports it with a
	// [*ConflictError].
	FileRedirected
	// FileTooLarge: the file is larger than the host's limit on a file read
	// (Limits.FileBytes), or an added file's content larger than its limit on one Add
	// (Limits.AddBytes).
	FileTooLarge
)

// Private reasons that pick their own message: fileUnresolvable is the FileUnreadable of a
// path whose links could not be followed, fileAddTooLarge the FileTooLarge of an Add,
// fileExistsDir the FileExists of a path that is a directory, fileRewriteSymlink and
// fileMoveSymlink the FileLinked of a Delete then an Add, and of a Move, of a symbolic
// link, and fileDeleteMissing the FileMissing of a Delete.
const (
	fileUnresolvable FileReason = -1 - iota
	fileAddTooLarge
	fileExistsDir
	fileRewriteSymlink
	fileMoveSymlink
	fileDeleteMissing
	fileNoWorkspace
	fileMoveOntoFile
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
	FileLinked: "the file has several hard links and cannot be replaced by rename here; rewriting it in place " +
		"would change its other names too, so it was not written",
	FileForbidden: "the path is, or leads through a symbolic link to, a credential location or applypatch's own " +
		"state (its recovery journal, key or history), which is never written; choose another path",
	fileUnresolvable: "the path cannot be resolved",
	fileExistsDir:    "the path is a directory (deleting the files in it does not remove it); name a file that does not exist",
	fileRewriteSymlink: "the path is a symbolic link, and its Delete then Add in one patch would write the file it points to; " +
		"delete the link in one patch and add the file in the next",
	fileDeleteMissing: "the file does not exist, so there is nothing to delete; re-read the directory, or drop the " +
		"Delete File section",
	fileMoveOntoFile: "the Move's destination already exists, and a Move never replaces a file; choose another " +
		"destination, or remove that file in an earlier patch",
	// fileNoWorkspace is rendered with the workspace.
	fileNoWorkspace: "the file does not exist, and neither does the workspace directory %s: the host's Options.Workspace " +
		"names the wrong directory, which no patch can fix",
	fileMoveSymlink: "the path is a symbolic link, and moving it would move the file it points to away, leaving the link " +
		"dangling; move the file by its own path, or delete the link and add the file at the destination",
	// FileAliased is rendered with the other path.
	FileAliased: "the path names the same file as %s (through a symbolic link, or spelled another way); put all changes to one file in one section",
	FileRedirected: "the path no longer leads where it did when it was checked (a symbolic link changed); " +
		"resolve the patch again from the current files",
	// FileTooLarge and fileAddTooLarge are rendered with the size and the limit.
	FileTooLarge:    "the file has %s bytes, over the limit of %s this host reads; it cannot be patched here",
	fileAddTooLarge: "the added file has %s bytes, over the limit of %s for one Add; split the change into smaller patches",
}

// unauthorized is the text of FileUnauthorized, by class: what happened, then what to do.
var unauthorized = map[Class][2]string{
	ClassOutside: {"the path is outside the workspace (by '..', an absolute path or a symbolic link), " +
		"and the host did not allow it", "use a path inside the workspace"},
	ClassProtected: {"the path is protected (such as .git/), and the host did not allow it",
		"leave it alone, or ask the user to change it"},
}

// A FileError reports a path the payload cannot use as it asks: the file's state does not
// allow the operation, or the fence refused the path. Its text names the path as
// authored and nothing the payload did not name.
//
// errors.Is(err, &FileError{}) holds for every FileError, and
// errors.Is(err, &FileError{Reason: FileMissing}) for one with that reason.
type FileError struct {
	// Path is the path as authored.
	Path   string
	Reason FileReason
	// Class is, for a refusal of the fence, where the path resolved; zero when it could
	// not be resolved.
	Class Class
	// Parent is, for FileParentNotDir, the parent of Path, as authored, that is a file.
	Parent string
	// Other is, for FileAliased, the other path of the payload that names the same file.
	Other string
	// Err is the cause, if any: the Authorizer's answer, or a sanitised filesystem error.
	Err error

	why         FileReason // the private reason behind Reason, which picks the message
	size, limit int64      // for FileTooLarge
	// suggest is, for a FileUnauthorized outside path, the workspace path it ends with.
	suggest string
	// workspace is, for a FileMissing because the workspace itself is missing, its path.
	workspace string
}

// tooLarge is the FileTooLarge of a file read (why 0) or of an Add (fileAddTooLarge).
func tooLarge(path string, why FileReason, size, limit int64) *FileError {
	return &FileError{Path: path, Reason: FileTooLarge, why: why, size: size, limit: limit}
}

func (e *FileError) Error() string {
	shown := show.Path(e.Path)
	switch e.Reason {
	case FileParentNotDir:
		return shown + ": " + fmt.Sprintf(fileReasonText[FileParentNotDir], show.Path(e.Parent))
	case FileAliased:
		return shown + ": " + fmt.Sprintf(fileReasonText[FileAliased], show.Path(e.Other))
	case FileTooLarge:
		return shown + ": " + fmt.Sprintf(fileReasonText[cmp.Or(e.why, FileTooLarge)], show.Thousands(int(e.size)), show.Thousands(int(e.limit)))
	case FileMissing:
		if e.why == fileNoWorkspace {
			return shown + ": " + fmt.Sprintf(fileReasonText[fileNoWorkspace], e.workspace)
		}
	case FileUnauthorized:
		text := unauthorized[e.Class]
		if e.suggest != "" {
			text[1] = fmt.Sprintf("use a path inside the workspace: it holds %s, which this path ends with "+
				"(a container's mount point is not the workspace's path); nothing was written there", show.Path(e.suggest))
		}
		if e.Err != nil {
			return fmt.Sprintf("%s: %s (%v); %s", shown, text[0], e.Err, text[1])
		}
		return fmt.Sprintf("%s: %s; %s", shown, text[0], text[1])
	}
	msg := shown + ": " + fileReasonText[e.Reason]
	if e.why != 0 {
		msg = shown + ": " + fileReasonText[e.why]
	}
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

// An IncompleteRollbackError reports a commit that failed and could not restore every
// path, or a [Recover] that could not finish undoing an interrupted commit. Cause is the
// original failure. Paths are every path (as authored, sorted) not at its baseline: a
// file the commit wrote or removed that could not be restored, one someone else changed
// meanwhile (left as they made it), a temporary file or a directory the commit created
// that could not be removed. Inspect them before retrying.
type IncompleteRollbackError struct {
	Cause error
	Paths []string
	// Reasons says, for each of Paths, why it was not restored.
	Reasons map[string]string

	recovery    bool // a Recover that could not finish, rather than a commit's rollback
	journalKept bool // the commit's journal stays, for a recovery to finish the rollback
}

func (e *IncompleteRollbackError) Error() string {
	paths := make([]string, len(e.Paths))
	for i, p := range e.Paths {
		paths[i] = show.Path(p)
		if r := e.Reasons[p]; r != "" {
			paths[i] += " (" + r + ")"
		}
	}
	if e.recovery {
		msg := "recovery of an interrupted commit could not finish: " + e.Cause.Error() + ". Fix the cause and run recovery again"
		if len(paths) > 0 {
			msg += "; these paths were not restored: " + strings.Join(paths, ", ")
		}
		return show.Clip(msg, show.ErrorBudget)
	}
	kept := ""
	if e.journalKept {
		kept = " The commit's journal keeps what they held before: once the cause is fixed, the next run in this " +
			"workspace (or a recovery) puts back those that still hold what the commit wrote."
	}
	return show.Clip(fmt.Sprintf("patch rollback incomplete: these paths were not restored: %s. "+
		"Inspect them before retrying.%s The commit failed because: %v", strings.Join(paths, ", "), kept, e.Cause), show.ErrorBudget)
}

// Unwrap returns the original failure.
func (e *IncompleteRollbackError) Unwrap() error { return e.Cause }

// A rolledBackError is a commit that failed and left the tree as it was: nothing was
// applied. When Wrote is set it had started writing, and its rollback restored every
// path it had written. Err is the failure; errors.Is and errors.As see through to it.
type rolledBackError struct {
	Err   error
	Wrote bool
}

func (e *rolledBackError) Error() string {
	if !e.Wrote {
		return e.Err.Error() + "; nothing was applied"
	}
	return e.Err.Error() + "; nothing was applied: every path the commit had written was restored"
}

func (e *rolledBackError) Unwrap() error { return e.Err }

// fileReasonNames, conflictReasonNames and matchReasonNames are the names the reasons print
// as: the constants' own names, so a log line can be searched for in the documentation.
var (
	fileReasonNames = map[FileReason]string{
		FileMissing: "FileMissing", FileExists: "FileExists", FileIsDir: "FileIsDir",
		FileBinary: "FileBinary", FileUndecodable: "FileUndecodable",
		FileUnreadable: "FileUnreadable", FileParentNotDir: "FileParentNotDir",
		FileLinked: "FileLinked", FileForbidden: "FileForbidden",
		FileUnauthorized: "FileUnauthorized", FileAliased: "FileAliased",
		FileRedirected: "FileRedirected", FileTooLarge: "FileTooLarge",
	}
	conflictReasonNames = map[ConflictReason]string{
		ConflictChanged: "ConflictChanged", ConflictNotOwned: "ConflictNotOwned",
		ConflictUnsaved: "ConflictUnsaved", ConflictOwner: "ConflictOwner",
		ConflictLocked: "ConflictLocked", ConflictNotInPatch: "ConflictNotInPatch",
	}
	matchReasonNames = map[MatchReason]string{
		MatchNotFound: "MatchNotFound", MatchAmbiguous: "MatchAmbiguous", MatchOverlap: "MatchOverlap",
	}
)

// reasonName is names[r], or the type's name with the number for a value it does not name.
func reasonName[R ~int](names map[R]string, typ string, r R) string {
	if s, ok := names[r]; ok {
		return s
	}
	return typ + "(" + strconv.Itoa(int(r)) + ")"
}

// String returns the constant's name, such as "FileMissing".
func (r FileReason) String() string { return reasonName(fileReasonNames, "FileReason", r) }

// String returns the constant's name, such as "ConflictChanged".
func (r ConflictReason) String() string { return reasonName(conflictReasonNames, "ConflictReason", r) }

// String returns the constant's name, such as "MatchAmbiguous".
func (r MatchReason) String() string { return reasonName(matchReasonNames, "MatchReason", r) }

// ErrWorkspaceMoved refuses a call whose Options.WorkspaceFs is not the directory
// Options.Workspace leads to: the host opened the directory (with fs/rootfs, say) and it
// was moved, removed or replaced since, or it opened another directory than the name
// leads to, so that the call's writes would land in a directory that is not the
// workspace. Nothing is written. A long-running host opens the workspace for each call,
// or opens it again when it gets this error.
var ErrWorkspaceMoved = fence.ErrMoved
