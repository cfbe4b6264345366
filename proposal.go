package applypatch

import (
	"errors"
	"io/fs"
	"slices"

	"golang.org/x/text/encoding"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// A Snapshot is an expected-before state a host supplies for a path: what it last
// saw there. Hash is the hex SHA-256 of the bytes; an empty Hash checks presence only.
type Snapshot struct {
	Exists bool        `json:"exists"`         // whether the path holds a file
	Mode   fs.FileMode `json:"mode,omitempty"` // its mode; zero checks none
	Hash   string      `json:"hash,omitempty"` // the hex SHA-256 of its bytes; empty checks none
}

// A Proposal is a resolved patch: every path fenced and classified, every baseline
// captured, every hunk placed and every result derived. Nothing has been written. A
// review changes its selection, feedback and revisions; [Commit] writes it.
type Proposal struct {
	// Patch is the parsed payload.
	patch *Patch
	// Changes are the resolved operations, in payload order.
	changes []*change
	// Feedback is whole-patch feedback staged in review.
	feedback string

	fsys   afero.Fs
	opts   Options
	fenced *fence.Fence // the resolver and classes of F1–F4, built by Resolve
	// read holds what each baseline's file said of itself when its bytes were read;
	// readLocked is set when they were read under the commit's lock ([Apply]), so the
	// capture is the commit's check of the whole batch.
	read       filestate.Stamps
	readLocked bool
	// payload is the text the patch was parsed from, when there was one: what a history
	// entry records; reverts is set on an undo's or a redo's proposal.
	payload string
	reverts *reverting
	// restores are, during Resolve of an undo or a redo, the restoreSpec of each
	// operation.
	restores []*restoreSpec
	edits    []*Edit
}

// A change is one resolved operation.
type change struct {
	// Op is the operation as parsed; its Hunks are mirrored, with their review state, in
	// Hunks.
	Op Operation
	// Class is the class of Op.Path; MoveClass of Op.MoveTo.
	Class, MoveClass Class
	// Base is the baseline of the path; Dest of the Move destination.
	Base, Dest filestate.Baseline
	// Hunks are the Update's hunks with their placements and review state.
	Hunks []*hunkChange
	// rewrite is set for a Delete followed by an Add of the same path: the change is an
	// Update whose one hunk replaces every line of the file with content, keeping its mode.
	rewrite      bool
	rewriteLines []string
	// whole is set on a rewrite that replaces the file whole rather than by its hunk:
	// one whose file has no lines to remove (binary, or not in its encoding), and an
	// undo's or a redo's, which puts bytes back exactly. Its hunk, if any, only shows it,
	// and it is selected or not as one.
	whole bool
	// Selected is the review choice for an Add, a Delete or a Move, which are indivisible.
	// An Update's selection lives on its hunks.
	Selected bool
	// Feedback is feedback on the whole operation.
	Feedback string
	// Revised is set when a person replaced the operation's content in review.
	Revised bool

	name, moveName string // resolved names in the filesystem
	// parentErr and destParentErr are set when a parent of the path an Add or a Move
	// creates is a file on disk: an error unless an earlier operation removes it.
	parentErr, destParentErr error
	text                     *lines.Text
	codec                    *lines.Codec
	derived                  derivedResult
	// spare holds the regions validate found, whose room the content of a write step
	// takes, so that a large Update's regions are allocated once.
	spare []region
	// exact is set on an undo's or a redo's Update whose file holds what its hunks were
	// computed from: they were placed where the comparison put them.
	exact bool
	// unterminated is set on an undo's or a redo's Update whose result must not end with a
	// line terminator (see finalNewline).
	unterminated bool
	// restore is what an undo's or a redo's operation expects and puts back.
	undoSpec *restoreSpec
	// edit is the text-anchored edit an operation of ResolveEdit makes.
	edit *Edit
}

// A hunkChange is one hunk of an Update with where it landed and its review state.
type hunkChange struct {
	Hunk
	Place    match.Place
	Feedback string
	Selected bool
	Revised  bool // beside Selected: one word for both, of the thousands a large patch holds
	// indentUnlike is set when the hunk's '+' lines are indented unlike the file's lines
	// around them (see indentUnlike).
	indentUnlike bool
}

// revisedSelection reports whether an applied hunk of the change was revised in review.
func (c *change) revisedSelection() bool {
	for _, h := range c.Hunks {
		if h.Revised && c.applies(h) {
			return true
		}
	}
	return false
}

func (pr *Proposal) declared(name string) (encoding.Encoding, string) {
	if pr.opts.Encoding == nil {
		return nil, ""
	}
	return pr.opts.Encoding(name)
}

// decodeString is decodeBase before the text is split into lines.
func (pr *Proposal) decodeString(c *change) (string, *lines.Codec, error) {
	enc, name := pr.declared(c.name)
	s, cd, err := lines.Decode(c.Base.Bytes, enc, name)
	switch {
	case errors.Is(err, lines.ErrBinary):
		return "", nil, &FileError{Path: c.Op.Path, Reason: FileBinary}
	case err != nil:
		return "", nil, undecodable(c.Op.Path, err)
	}
	if len(s) > lines.MaxText {
		return "", nil, tooLarge(c.Op.Path, 0, int64(len(s)), lines.MaxText)
	}
	return s, cd, nil
}

// hasSelection reports whether the change has anything selected to apply.
func (c *change) hasSelection() bool {
	if !c.divisible() {
		return c.Selected
	}
	for _, h := range c.Hunks {
		if h.Selected && !h.isLocator() {
			return true
		}
	}
	return false
}

// appendNew appends s to list unless list has it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// applies reports whether a hunk is applied with the current selection: a selected hunk
// of an Update, or any hunk of a selected Move or whole rewrite, which are indivisible.
func (c *change) applies(h *hunkChange) bool {
	if c.Op.isMove() || c.whole {
		return c.Selected
	}
	return h.Selected
}

// encodingError is the cause of a FileUndecodable: the line and the character the codec
// found, as it words them. Hosts match the FileError's reason; the codec's own fact
// stays behind this wrapper.
type encodingError struct{ fact *lines.EncodingError }

func (e *encodingError) Error() string { return e.fact.Error() }

// undecodable words a file that cannot be decoded, or a result that cannot be encoded,
// as the public error.
func undecodable(path string, err error) *FileError {
	var fact *lines.EncodingError
	if errors.As(err, &fact) {
		err = &encodingError{fact}
	}
	return &FileError{Path: path, Reason: FileUndecodable, Err: err}
}
