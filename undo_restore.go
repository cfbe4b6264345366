package applypatch

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/text/encoding"

	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/show"
)

// restoreSpec is what an operation of an undo or a redo expects and restores: the bytes
// its path holds when nothing changed since (from), the bytes and mode it puts back (to,
// mode), and for an Update each hunk's first line in from.
type restoreSpec struct {
	from, to []byte
	mode     fs.FileMode
	// fromMode is the mode the path has when nothing changed since, where the history
	// says it (a file the revert deletes); 0 where it does not.
	fromMode fs.FileMode
	starts   []int
	// size and crc identify from when its bytes are not at hand (an undo of an Update,
	// whose result the history keeps as its regions).
	size int64
	crc  uint32
	// names are the files the change wrote at the operation's source and destination,
	// as the history recorded them: relative to the workspace, links followed.
	names [2]string
	// rewrite is set for a file the revert replaces whole, a Delete then an Add: one
	// whose content on either side has no lines to place (binary, or not in its encoding).
	rewrite bool
	// rebuild makes from's bytes where they are not at hand, for a file edited since.
	rebuild func() ([]byte, error)
}

// fromBytes returns the bytes the operation expects to find when nothing changed since.
func (r *restoreSpec) fromBytes() ([]byte, error) {
	if r.from != nil || r.rebuild == nil {
		return r.from, nil
	}
	return r.rebuild()
}

// holds reports whether b is what the operation expects to find when nothing changed
// since: from byte for byte, or of from's size and CRC-32C.
func (r *restoreSpec) holds(b []byte) bool {
	if r.from != nil || r.size == 0 && r.crc == 0 {
		return bytes.Equal(b, r.from)
	}
	return int64(len(b)) == r.size && history.Checksum(b) == r.crc
}

// placeRestore places an undo's or a redo's hunks on a file that holds exactly the bytes
// they were computed from: each where the comparison put it, with no search.
func (pr *Proposal) placeRestore(c *change, s string, cd *lines.Codec) []error {
	c.text, c.codec, c.exact = lines.Split(s), cd, true
	for i, h := range c.Op.Hunks {
		place := match.Place{Start: c.undoSpec.starts[i], Len: oldCount(h.Lines), Pass: match.Exact}
		c.Hunks = append(c.Hunks, &hunkChange{Hunk: h, Place: place, Selected: true})
	}
	if err := c.validate(); err != nil {
		return []error{err}
	}
	return nil
}

// restored returns the bytes an undo or a redo puts back exactly: an Add's, or an
// Update's whose file held exactly what the change left, while every hunk is selected
// and none revised. Otherwise the result is derived from the hunks as for any patch.
func (c *change) restored() ([]byte, bool) {
	r := c.undoSpec
	switch {
	case r == nil || c.Op.Kind == OpDelete || c.Revised:
		return nil, false
	case c.Op.Kind == OpAdd:
		return r.to, c.Selected
	case c.whole:
		return r.to, c.Selected && !c.revisedSelection()
	case !c.exact:
		return nil, false
	}
	for _, h := range c.Hunks {
		if !h.isLocator() && (!c.applies(h) || h.Revised) {
			return nil, false
		}
	}
	return r.to, true
}

// checkReverting refuses an undo or a redo that would write what changed since: an
// operation whose path now leads to another file than the change wrote, and a Delete
// of a file that no longer holds the bytes or the mode the change left.
func (pr *Proposal) checkReverting() error {
	f, err := pr.fencer()
	if err != nil {
		return err
	}
	stale := &ConflictError{Reason: ConflictChanged, Reasons: map[string]string{}}
	for _, c := range pr.changes {
		r := c.undoSpec
		switch {
		case r == nil:
		case !c.leadsTo(f.Real(), r.names):
			stale.Paths = append(stale.Paths, c.Op.Path)
			stale.Reasons[c.Op.Path] = "it leads to another file than the change wrote (a symbolic link was made, changed " +
				"or replaced since), which must not be written in its place"
		case c.Op.Kind == OpUpdate && len(c.Op.Hunks) > 0 && r.to != nil && !r.holds(c.Base.Bytes) && bytes.Equal(c.Base.Bytes, r.to):
			// already as the revert would leave it (a part a review kept back, or put back
			// by hand): placing its hunks again would apply them twice. The revert is
			// proposed once more without them (see revert and reversal): the part left out,
			// or for a Move, the move alone.
			return errHeldAlready
		case c.Op.Kind == OpDelete && c.Base.Mode&fs.ModeSymlink != 0:
			stale.Paths = append(stale.Paths, c.Op.Path)
			stale.Reasons[c.Op.Path] = "it was replaced by a symbolic link since; deleting it would remove the link, " +
				"not the file the change wrote"
		case c.Op.Kind == OpDelete && !r.holds(c.Base.Bytes):
			stale.Paths = append(stale.Paths, c.Op.Path)
			stale.Reasons[c.Op.Path] = "it was edited since; deleting it would lose those edits"
		case c.rewrite && !r.holds(c.Base.Bytes):
			stale.Paths = append(stale.Paths, c.Op.Path)
			stale.Reasons[c.Op.Path] = "it was changed since, and it has no lines to place a revert on (it is binary, " +
				"or not in its encoding, before or after the change); replacing it whole would lose those changes"
		case c.Op.Kind == OpDelete && r.fromMode != 0 && keptMode(c.Base.Mode) != r.fromMode:
			stale.Paths = append(stale.Paths, c.Op.Path)
			stale.Reasons[c.Op.Path] = fmt.Sprintf("its mode was changed since (%v, where the change left %v); deleting it would lose that",
				keptMode(c.Base.Mode), r.fromMode)
		}
	}
	if len(stale.Paths) > 0 {
		return stale
	}
	return nil
}

// errHeldAlready refuses a revert that still holds an Update whose file already holds
// what the revert would leave, which the proposal without such parts should have left
// out: never a reason to mark the change reverted.
var errHeldAlready = errors.New("a file already holds what the revert would leave, yet it could not be left out of it")

// keptMode is the part of a file's mode the history keeps: its permissions, setuid,
// setgid and sticky bits.
func keptMode(m fs.FileMode) fs.FileMode {
	return m.Perm() | m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)
}

// leadsTo reports whether an operation of an undo or a redo still resolves to the files
// the change wrote, names (its source's and destination's, relative to root): a path
// whose link was pointed elsewhere since, or replaced by a link or by a file, leads to
// another file, which the revert must not write.
func (c *change) leadsTo(root string, names [2]string) bool {
	want := names[0]
	if c.Op.Kind == OpAdd {
		want = names[1] // an Add creates the destination
	}
	if got, ok := relativeTo(root, c.name); !ok || got != want {
		return false
	}
	if c.Op.MoveTo == "" {
		return true
	}
	got, ok := relativeTo(root, c.moveName)
	return ok && got == names[1]
}

// sinceReasons word what happened to a path since the change, by the file error an
// operation of the undo met.
var sinceReasons = map[FileReason]string{
	FileExists:       "it was created since",
	FileMissing:      "it was deleted since",
	FileIsDir:        "it was replaced by a directory since",
	FileBinary:       "it was replaced by a binary file since",
	FileParentNotDir: "a directory above it was replaced by a file since",
	FileAliased: "it now names the same file as another path of the change (a symbolic link was made since, " +
		"or a name spelled another way)",
}

// refused is the error of an undo or a redo that cannot be proposed: what changed since
// at each path, and every hunk that cannot be placed.
func (rv *reverting) refused(err error) error {
	var errs []error
	if pe, ok := err.(*patchError); ok {
		errs = pe.errs
	} else {
		errs = []error{err}
	}
	since := &ConflictError{Reason: ConflictChanged, Reasons: map[string]string{}}
	var rest []error
	for _, err := range errs {
		var fe *FileError
		var ce *ConflictError
		switch {
		case errors.As(err, &fe) && fe.Reason == FileExists && rv.undo && slices.Contains(rv.made, madeName(fe.Path)):
			rest = append(rest, &madeDirError{path: fe.Path})
		case errors.As(err, &fe) && sinceReasons[fe.Reason] != "":
			since.Paths = append(since.Paths, fe.Path)
			since.Reasons[fe.Path] = sinceReasons[fe.Reason]
		case errors.As(err, &ce) && ce.Reason == ConflictChanged && len(ce.Reasons) > 0:
			for _, p := range ce.Paths {
				since.Paths = append(since.Paths, p)
				since.Reasons[p] = ce.Reasons[p]
			}
		default:
			rest = append(rest, err)
		}
	}
	if len(since.Paths) > 0 {
		rest = append([]error{since}, rest...)
	}
	return &revertError{rv: rv, errs: rest}
}

// A madeDirError refuses the undo of a Delete whose path the change then made a directory,
// for files it added there: the undo puts files back, and does not remove a directory to
// do so.
type madeDirError struct{ path string }

func (e *madeDirError) Error() string {
	return show.Path(e.path) + ": the change made it a directory, for the files it added there, and an undo does " +
		"not turn a directory back into a file; remove the directory by hand (look in it first: it may hold files " +
		"made since) and undo again"
}

// madeName is an authored path as the history names the directories a change made.
func madeName(p string) string { return path.Clean(filepath.ToSlash(p)) }

// A revertError is an undo or a redo refused: nothing was written.
type revertError struct {
	rv   *reverting
	errs []error
}

func (e *revertError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cannot %s %s; nothing was written:", e.rv.verb(), e.rv.what())
	for _, err := range e.errs {
		if ce, ok := err.(*ConflictError); ok {
			for _, p := range ce.Paths {
				fmt.Fprintf(&b, "\n- %s: %s", show.Path(p), ce.Reasons[p])
			}
			continue
		}
		fmt.Fprintf(&b, "\n- %s", strings.ReplaceAll(revertProblem(err, e.rv.undo), "\n", "\n  "))
	}
	b.WriteString("\nEvery file is as it was.")
	if e.sinceOnly() && e.rv.undo {
		b.WriteString(" Put those paths back as the change left them and try again, or keep the change.")
	} else if e.sinceOnly() {
		b.WriteString(" Put those paths back as the undo left them and try again, or leave the change undone.")
	}
	return show.Clip(b.String(), show.ErrorBudget)
}

func (e *revertError) Unwrap() []error { return e.errs }

// sinceOnly reports whether every reason the revert was refused is a path changed since,
// which putting it back as the change left it would settle.
func (e *revertError) sinceOnly() bool {
	for _, err := range e.errs {
		var me *MatchError
		if _, ok := err.(*ConflictError); !ok && !errors.As(err, &me) {
			return false
		}
	}
	return true
}

// verb is "undo" or "redo".
func (rv *reverting) verb() string {
	if rv.undo {
		return "undo"
	}
	return "redo"
}

// what names the entry: its id, time and paths.
func (rv *reverting) what() string {
	return fmt.Sprintf("the change %s of %s (%s)", rv.entry.ID, rv.entry.when(), rv.entry.paths())
}

// revertProblem words one problem of an undo (or, undo false, a redo): a hunk that no
// longer matches is told as lines edited since, with the closest region the matcher
// found. An undo looks for the lines the change left, a redo for the lines it found.
func revertProblem(err error, undo bool) string {
	var me *MatchError
	if !errors.As(err, &me) {
		return strings.TrimSuffix(err.Error(), "\nNothing was applied.")
	}
	lines, what := "the lines the change left there", "put them back"
	if !undo {
		lines, what = "the lines the change found there", "change them again"
	}
	if me.Reason == MatchAmbiguous && len(me.Lines) > 1 {
		return fmt.Sprintf("%s: hunk %d: %s now occur at more than one place (starting at lines %s), so which of "+
			"them to %s is not certain", show.Path(me.Path), me.Hunk, lines, me.lines(), strings.TrimSuffix(what, " again"))
	}
	head := fmt.Sprintf("%s: hunk %d: %s were edited since, so where to %s is not certain", show.Path(me.Path), me.Hunk, lines, what)
	if near := me.nearText(); near != "" {
		return head + "\n" + near
	}
	return head
}

// finalNewline reports whether an undo's or a redo's Update of a file edited since must
// leave it without a final line terminator, where a patch's Update always ends with one:
// as what it restores does, when the change made the difference (a commit gives a file
// that lacked one a final newline, which its undo takes away) and the file still ends
// with the line the change left last (by the diff of the file since, not by its text: a
// closing brace appended since is another line); otherwise as the file holds now, so that
// a final newline removed or added by hand since is kept, and so is a line appended
// since, or the end of a file whose last line was deleted since.
// The file expected is the since map's, whose line ends it keeps: its bytes are not
// rebuilt again.
func finalNewline(r *restoreSpec, now []byte, since *sinceMap) bool {
	if since == nil || len(since.ends) == 0 {
		return unterminated(now)
	}
	last := len(since.ends) - 1
	fromOpen := since.ends[last] == lines.EOLNone // the file expected ends without a terminator
	if fromOpen != unterminated(r.to) && since.at[last] == since.n-1 {
		return unterminated(r.to)
	}
	return unterminated(now)
}

// unterminated reports whether b is text whose last line has no terminator.
func unterminated(b []byte) bool {
	return len(b) > 0 && b[len(b)-1] != '\n' && b[len(b)-1] != '\r'
}

// withoutFinalNewline drops the terminator that ends b, if one does.
func withoutFinalNewline(b []byte) []byte {
	switch {
	case bytes.HasSuffix(b, []byte("\r\n")):
		return b[:len(b)-2]
	case bytes.HasSuffix(b, []byte("\n")), bytes.HasSuffix(b, []byte("\r")):
		return b[:len(b)-1]
	}
	return b
}

// restoredText is the text of the bytes an undo or a redo restores, as the file's codec
// reads them (a UTF-8 file's bytes as they are, without a byte-order mark).
func restoredText(c *change, b []byte) string {
	var enc encoding.Encoding
	name := ""
	if c.codec != nil {
		enc, name = c.codec.Enc, c.codec.Name
	}
	if s, _, err := lines.Decode(b, enc, name); err == nil {
		return s
	}
	return string(b)
}
