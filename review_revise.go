package applypatch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/diff"
	"github.com/applypatch/applypatch/internal/envelope"
	"github.com/applypatch/applypatch/internal/lines"
)

// revisionContext is the number of context lines around each derived hunk.
const revisionContext = 3

// promptAdoptClears is asked before adopting a revision of an Add or a Delete that carries
// feedback: adopting selects it, and a selected change carries no feedback.
const promptAdoptClears = "Adopt the revision and clear its feedback?"

// A Revision is one open edit of an operation's result: a person sees the baseline
// (read-only) and the result the patch would produce with the current selection, edits
// the result as plain file text and hands it back to [Revision.Adopt]. A session has at
// most one open revision.
//
// Its fields describe the revision as it opened; they are copies for the front end, and
// changing them changes nothing the revision does.
type Revision struct {
	// Path is the path of the revised operation as authored.
	Path string
	// Target is the target of the revised operation.
	Target Target
	// Line is the 1-based baseline line to open the revision at: the hunk it was opened
	// from, else 1.
	Line int
	// Baseline is the left, read-only side: the file as captured (empty for an Add).
	Baseline string
	// Proposed is the right side as the revision opened: what the operation would produce
	// with the selection at that moment (empty for a Delete).
	Proposed string

	s        *Session
	c        *change
	target   Target
	line     int
	base     string
	proposed string
	closed   bool
}

// Revise opens a revision of the operation a target names (a hunk target opens its file,
// positioned at the hunk). The two sides are, for an Add, empty and its content; for a
// Delete, the baseline and empty; for an Update or Move, the baseline and the baseline
// with the selected hunks applied. It is refused while another revision is open
// ([ReviewRefused]), for a pure rename, and when both sides hold the same lines, as for a
// file with nothing selected ([ReviewRefused]).
func (s *Session) Revise(t Target) (*Revision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(t); err != nil {
		return nil, err
	}
	if s.revision != nil {
		return nil, reviewErr(reviewRevisionOpen, t, "")
	}
	c, h, err := s.lookup(t)
	switch {
	case err != nil:
		return nil, err
	case c == nil:
		return nil, reviewErr(reviewUnknownTarget, t, "a revision edits one file; choose a file or a hunk")
	case c.Op.Kind == OpUpdate && len(c.changing()) == 0:
		return nil, reviewErr(reviewNothingToEdit, t, "A pure rename has no content to edit; select it to keep the new path, or deselect it")
	}
	base, proposed, err := s.sides(c)
	if err != nil {
		return nil, refused(&ReviewError{Reason: reviewNothingToEdit, Target: t, Err: err})
	}
	if slices.Equal(logicalLines(base), logicalLines(proposed)) {
		if c.hasSelection() { // an empty Add or a Delete of an empty file
			return nil, reviewErr(reviewNothingToEdit, t, "The file is empty on both sides; there is nothing to edit")
		}
		return nil, reviewErr(reviewNothingToEdit, t, "Nothing to compare; select a change in this file first")
	}
	r := &Revision{s: s, c: c, target: Target{File: t.File}, line: 1, base: base, proposed: proposed}
	if h != nil {
		r.line = h.Place.Line()
	}
	r.Path, r.Target, r.Line, r.Baseline, r.Proposed = c.Op.Path, r.target, r.line, base, proposed
	s.revision = r
	return r, nil
}

// Cancel closes the revision without staging anything.
func (r *Revision) Cancel() {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.close()
}

func (r *Revision) close() {
	r.closed = true
	if r.s.revision == r {
		r.s.revision = nil
	}
}

// Adopt stages edited, the whole new text of the file, in place of the operation's
// change. For an Update or Move it re-derives the hunks as a 3-line-context diff of
// baseline → edited, parsed by [Parse] so they match by construction; they are selected
// and marked revised, and the hunks that were deselected are kept (with their feedback,
// still re-selectable), all in baseline order. An Add's content is replaced; a Delete
// that keeps content becomes an Update. An Add or a Delete that carries feedback asks
// confirm before the adoption clears it. Only line content counts: line endings follow
// the file's own.
//
// Adopt refuses empty text, text that leaves the file unchanged and text that is already
// the proposed result ([ReviewRefused], "nothing to adopt": a front end may take that one
// as a quiet no-op), and an unconfirmed feedback loss ([ReviewNeedsConfirm]); the revision
// stays open for another try or a Cancel. It discards the revision when the review is no
// longer open ([ReviewClosed]) or the file's selection changed since the revision opened
// ([ReviewRefused], "revision discarded"): a result computed from the older selection
// would reinstate what a person just changed. A revision that fails validation is rolled
// back ([ReviewRefused]). In every case the review stays as it was.
func (r *Revision) Adopt(edited string, confirm func(prompt string) bool) error {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.closed {
		return reviewErr(reviewRevisionClosed, r.target, "")
	}
	if err := r.fresh(); err != nil {
		r.close()
		return err
	}
	if strings.TrimSpace(edited) == "" {
		return reviewErr(reviewRevisionRefused, r.target, emptyRevision[r.c.Op.Kind])
	}
	if f := findTextFault(edited); f != nil {
		return reviewErr(reviewRevisionRefused, r.target, fmt.Sprintf("Line %d of the text: %s", f.line, f))
	}
	lines := logicalLines(edited)
	if slices.Equal(lines, logicalLines(r.proposed)) {
		return reviewErr(reviewRevisionUnchanged, r.target, "the text is what the patch already proposes; nothing was staged")
	}
	if r.c.Op.Kind != OpUpdate && r.c.Feedback != "" && (confirm == nil || !confirm(promptAdoptClears)) {
		return &ReviewError{Reason: ReviewNeedsConfirm, Target: r.target, Prompt: promptAdoptClears}
	}
	saved := r.c.save()
	if err := r.stage(lines); err != nil {
		r.c.restore(saved)
		var re *ReviewError
		if errors.As(err, &re) {
			return re
		}
		return refused(&ReviewError{Reason: reviewRevisionInvalid, Target: r.target, Err: err})
	}
	r.close()
	return nil
}

// emptyRevision says what to do instead of an empty revision.
var emptyRevision = map[OpKind]string{
	OpAdd:    "An added file needs content; reject the file instead",
	OpDelete: "Empty content keeps nothing; the Delete stands as proposed",
	OpUpdate: "An empty revision keeps nothing; to empty the file, deselect its hunks and ask for it in feedback",
}

// fresh discards a revision that arrives too late: after the review left the open state,
// or after the file's selection changed (mevedel §3.3). s.mu is held.
func (r *Revision) fresh() error {
	if r.s.state != StateOpen {
		return reviewErr(reviewLate, r.target, "the review is no longer open")
	}
	_, proposed, err := r.s.sides(r.c)
	if err != nil || proposed != r.proposed {
		return reviewErr(reviewRevisionStale, r.target, "this file's selection changed while the revision was open")
	}
	return nil
}

// stage replaces the change's content with the edited lines and validates it.
func (r *Revision) stage(lines []string) error {
	c, pr := r.c, r.s.pr
	kind := c.Op.Kind
	switch kind {
	case OpAdd:
		c.Op.Lines = lines
	case OpDelete:
		t, cd, err := pr.decodeBase(c)
		if err != nil {
			return err
		}
		hs, err := hunksFromEdit(t, lines)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			return reviewErr(reviewRevisionRefused, r.target, "That keeps the file unchanged; deselect the Delete instead")
		}
		c.Op.Kind, c.text, c.codec = OpUpdate, t, cd
		c.setHunks(hs)
	case OpUpdate:
		hs, err := hunksFromEdit(c.text, lines)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			return reviewErr(reviewRevisionRefused, r.target, "That leaves the file unchanged; deselect its hunks instead")
		}
		c.setHunks(merged(hs, c))
	}
	if err := r.s.validate(c); err != nil {
		return err
	}
	if kind != OpUpdate { // an adopted Add or Delete is selected, revised and loses its feedback
		c.Selected, c.Revised, c.Feedback = true, true, ""
	}
	return nil
}

// merged puts derived hunks and the change's deselected changing hunks together in
// baseline order, derived first among equals. Locators and the replaced selected hunks
// go.
func merged(derived []*hunkChange, c *change) []*hunkChange {
	out := slices.Clone(derived)
	if c.divisible() {
		for _, h := range c.changing() {
			if !h.Selected {
				out = append(out, h)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *hunkChange) int { return cmp.Compare(a.Place.Start, b.Place.Start) })
	return out
}

// setHunks replaces the change's hunks, keeping Op.Hunks in step.
func (c *change) setHunks(hs []*hunkChange) {
	c.Hunks = hs
	c.Op.Hunks = make([]Hunk, len(hs))
	for i, h := range hs {
		c.Op.Hunks[i] = h.Hunk
	}
}

// validate checks a staged revision as Resolve and Commit would: the result derives,
// an Add stays within its limit and its path is still free, an edited file still exists.
func (s *Session) validate(c *change) error {
	if _, err := c.derive(); err != nil {
		return err
	}
	if c.Op.Kind == OpAdd {
		if n := addSize(c.Op.Lines); n > s.pr.opts.Limits.AddBytes {
			return tooLarge(c.Op.Path, fileAddTooLarge, int64(n), int64(s.pr.opts.Limits.AddBytes))
		}
	}
	_, err := s.pr.files().Stat(c.name)
	switch {
	case c.Op.Kind == OpAdd && err == nil:
		return &FileError{Path: c.Op.Path, Reason: FileExists}
	case c.Op.Kind != OpAdd && errors.Is(err, fs.ErrNotExist):
		return &FileError{Path: c.Op.Path, Reason: FileMissing}
	}
	return nil
}

// sides returns the two texts of a revision: the baseline and what the change produces
// with the current selection. A deselected Add, Delete or Move produces its baseline,
// unless an Add or Delete carries feedback: adopting would select it. s.mu is held.
func (s *Session) sides(c *change) (base, proposed string, err error) {
	restored, exact := c.restored()
	if exact && c.Op.Kind == OpAdd {
		return "", restoredText(c, restored), nil // an undo's or a redo's, byte for byte
	}
	if c.Op.Kind == OpAdd {
		if !c.Selected && c.Feedback == "" {
			return "", "", nil
		}
		return "", string(addContent(c.Op.Lines)), nil
	}
	t := c.text
	if t == nil {
		if t, _, err = s.pr.decodeBase(c); err != nil {
			return "", "", err
		}
	}
	base = t.Join()
	switch {
	case c.Op.Kind == OpDelete && (c.Selected || c.Feedback != ""):
		return base, "", nil
	case c.Op.Kind == OpDelete, c.Op.isMove() && !c.Selected:
		return base, base, nil
	}
	sel := c.selectedHunks()
	if len(sel) == 0 {
		return base, base, nil
	}
	if exact {
		return base, restoredText(c, restored), nil
	}
	out, merr := applyHunks(t, sel)
	if merr != nil {
		merr.Path = c.Op.Path
		return "", "", merr
	}
	if c.unterminated {
		out = withoutFinalNewline(out)
	}
	return base, string(out), nil
}

// logicalLines splits text into lines without terminators; LF, CRLF and a lone CR each
// end a line, and a final terminator does not start an empty line. Comparing logical
// lines keeps line-ending changes from counting as edits.
func logicalLines(s string) []string { return lines.Split(s).Strings() }

// hunksFromEdit derives the hunks that turn a baseline into edited lines: a
// 3-line-context diff, rendered as bare "@@" hunks, read back by the payload parser and
// placed against the baseline like any model hunk, so each matches by construction. A
// hunk whose content also occurs elsewhere gets a line hint ("@@ N") that pins it. No
// difference gives no hunks.
func hunksFromEdit(t *lines.Text, edited []string) ([]*hunkChange, error) {
	derived := diff.Hunks(t.Strings(), edited, revisionContext)
	if len(derived) == 0 {
		return nil, nil
	}
	p, err := Parse(derivedPayload(derived))
	if err != nil {
		return nil, fmt.Errorf("the revision could not be read back as hunks: %w", err)
	}
	hs := p.Ops[0].Hunks
	pl := newPlacer(t, hs)
	out := make([]*hunkChange, len(hs))
	for i := range hs {
		h := &hs[i]
		h.Line = 0 // derived hunks have no payload line
		place, ok := pl.PlaceAt(h.view(), derived[i].OldStart)
		if !ok {
			h.Hint = derived[i].OldStart + 1
			if place, ok = pl.PlaceAt(h.view(), derived[i].OldStart); !ok {
				return nil, fmt.Errorf("derived hunk %d does not land at line %d", i+1, derived[i].OldStart+1)
			}
		}
		out[i] = &hunkChange{Hunk: *h, Place: place, Selected: true, Revised: true}
	}
	return out, nil
}

// derivedPayload renders diff hunks as a payload of bare "@@" hunks.
func derivedPayload(hunks []diff.Hunk) string {
	var b strings.Builder
	b.WriteString(envelope.Begin + "\n" + headerUpdate + "revision\n")
	for _, h := range hunks {
		b.WriteString("@@\n")
		for _, l := range h.Lines {
			b.WriteByte(byte(l.Kind))
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	}
	b.WriteString(envelope.End + "\n")
	return b.String()
}

// changeState is what a revision may change on a change, kept to roll it back.
type changeState struct {
	op       Operation
	hunks    []*hunkChange
	selected bool
	feedback string
	revised  bool
	text     *lines.Text
	codec    *lines.Codec
}

func (c *change) save() changeState {
	return changeState{op: c.Op, hunks: c.Hunks, selected: c.Selected, feedback: c.Feedback,
		revised: c.Revised, text: c.text, codec: c.codec}
}

func (c *change) restore(st changeState) {
	c.Op, c.Hunks, c.Selected, c.Feedback, c.Revised, c.text, c.codec =
		st.op, st.hunks, st.selected, st.feedback, st.revised, st.text, st.codec
}
