package applypatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/show"
)

// place decodes an Update's baseline and places every hunk through the matcher,
// reporting every failure: each miss becomes a [*MatchError] that names the hunk.
func (pr *Proposal) place(c *change) []error {
	s, cd, err := pr.decodeString(c)
	if c.rewrite && (errors.Is(err, &FileError{Reason: FileBinary}) || errors.Is(err, &FileError{Reason: FileUndecodable})) {
		// A Delete then an Add replaces the file whole and never reads its lines: what
		// it held, binary or in an encoding not declared, is not needed.
		_, cd, _ := lines.Decode(nil, nil, "")
		c.whole = true // no hunk can remove what it held: the content replaces it
		return pr.placeRewrite(c, "", cd)
	}
	if c.edit != nil && err == nil {
		return pr.placeEdit(c, s, cd)
	}
	if len(c.Op.Hunks) == 0 && !c.rewrite && c.edit == nil { // a pure rename keeps the bytes as they are, text or not
		if errors.Is(err, &FileError{Reason: FileBinary}) {
			return []error{err}
		}
		return nil
	}
	if err != nil {
		return []error{err}
	}
	if c.rewrite {
		return pr.placeRewrite(c, s, cd)
	}
	if r := c.undoSpec; r != nil && r.holds(c.Base.Bytes) {
		return pr.placeRestore(c, s, cd)
	}
	hs := matchHunks(c.Op.Hunks)
	var t *lines.Text
	var pl *match.Placer
	var since *sinceMap
	if c.undoSpec != nil { // anchored first by the lines it expects, which the index reads
		t = lines.Split(s)
		since = pr.sinceOf(c, t)
		since.anchor(c.Op.Hunks, c.undoSpec.starts)
		pl = match.IndexLines(t, hs, c.name)
	} else {
		t, pl = match.Index(s, hs, c.name)
	}
	c.text, c.codec = t, cd
	var errs []error
	num := 0
	for i := range c.Op.Hunks {
		h := &c.Op.Hunks[i]
		if !h.isLocator() {
			num++
		}
		place, miss := pl.Place(hs[i])
		if c.undoSpec != nil {
			place, miss = placeRevert(since, c.name, t, h, c.undoSpec.starts[i], place, miss)
		}
		hc := &hunkChange{Hunk: *h, Place: place, Selected: !h.isLocator()}
		c.Hunks = append(c.Hunks, hc)
		if miss == nil && c.undoSpec != nil && (!removesExactly(t, h, place) || !since.endsKept(t, h, place)) {
			errs = append(errs, &MatchError{Path: c.Op.Path, PayloadLine: h.Line, Hunk: num, Reason: MatchNotFound})
			continue
		}
		if miss == nil {
			hc.indentUnlike = indentUnlike(t, h, place)
		}
		if miss != nil {
			pl.Explain(miss, hs[i])
			merr := matchError(miss)
			merr.Path, merr.PayloadLine, merr.Hint = c.Op.Path, h.Line, h.Hint
			if merr.Anchor == "" {
				merr.Anchor = h.Anchor
			}
			if merr.Outer == "" && merr.Anchor == h.Anchor && len(h.Within) > 0 {
				merr.Outer = h.Within[len(h.Within)-1] // the anchor above it in the chain
			}
			if !h.isLocator() {
				merr.Hunk = num
			}
			errs = append(errs, merr)
		}
	}
	if c.undoSpec != nil {
		c.unterminated = finalNewline(c.undoSpec, c.Base.Bytes, since)
	}
	if len(errs) == 0 {
		if err := c.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// placeRewrite places a rewrite's one hunk over the whole file: every line of it removed,
// the new content added. The file is matched by construction, so no search is made.
func (pr *Proposal) placeRewrite(c *change, s string, cd *lines.Codec) []error {
	t := lines.Split(s)
	h := Hunk{Line: c.Op.Line, EOF: true, Lines: make([]Line, 0, t.Count()+len(c.rewriteLines))}
	for i := range t.Count() {
		h.Lines = append(h.Lines, Line{Kind: LineRemove, Text: t.Line(i)})
	}
	for _, l := range c.rewriteLines {
		h.Lines = append(h.Lines, Line{Kind: LineAdd, Text: l})
	}
	c.text, c.codec = t, cd
	if len(h.Lines) == 0 {
		return nil // an empty file rewritten empty: nothing to write
	}
	c.Op.Hunks = []Hunk{h}
	c.Hunks = []*hunkChange{{Hunk: h, Place: match.Place{Len: t.Count(), Pass: match.Exact}, Selected: true}}
	return nil
}

// A hunkView is a Hunk as the matcher reads it ([match.Hunk]). It is the Hunk itself,
// converted, so the matcher reads its lines where they are: no copy per hunk or per line.
type hunkView Hunk

// view returns the hunk as the matcher reads it.
func (h *Hunk) view() match.Hunk { return (*hunkView)(h) }

// Chain returns the hunk's anchors, outermost first.
func (h *hunkView) Chain() []string { return (*Hunk)(h).chain() }

// Len returns how many lines the hunk has.
func (h *hunkView) Len() int { return len(h.Lines) }

// LineAt returns the kind and the text of line i; a LineKind is its marker, as a
// match.Kind is.
func (h *hunkView) LineAt(i int) (match.Kind, string) {
	return match.Kind(h.Lines[i].Kind), h.Lines[i].Text
}

// LineHint returns the hunk's line hint, or 0.
func (h *hunkView) LineHint() int { return h.Hint }

// AtEOF reports whether the hunk ends with "*** End of File".
func (h *hunkView) AtEOF() bool { return h.EOF }

// matchHunks returns the hunks of one Update as the matcher reads them: one slice per
// Update, holding a pointer to each hunk.
func matchHunks(hunks []Hunk) []match.Hunk {
	out := make([]match.Hunk, len(hunks))
	for i := range hunks {
		out[i] = hunks[i].view()
	}
	return out
}

// newPlacer prepares to place hunks in t.
func newPlacer(t *lines.Text, hunks []Hunk) *match.Placer { return match.New(t, matchHunks(hunks)) }

// matchError is the public error of a hunk the matcher could not place: its facts,
// copied field by field, and the exported reason behind the matcher's. The caller adds
// which hunk of which path it is.
func matchError(m *match.Miss) *MatchError {
	return &MatchError{Reason: coarse[m.Reason], why: m.Reason, Anchor: m.Anchor, Outer: m.Outer, Hint: m.Hint,
		Lines: m.Lines, More: m.More, moreCapped: m.MoreCapped, AnchorLine: m.AnchorLine,
		HunkLines: m.HunkLines, hunkMore: m.HunkMore, hunkCapped: m.HunkCapped, FileLines: m.FileLines,
		pass: m.Pass, appliedAt: m.AppliedAt, near: m.Near, occurs: m.Occurs, insertAt: m.InsertAt,
		unexplained: m.Unexplained, blockEnd: m.BlockEnd}
}

// MatchReason says why a hunk could not be placed.
type MatchReason int

const (
	// MatchNotFound: the hunk's context and removed lines were not found where it may go:
	// nowhere in the file, not below its "@@ TEXT" anchor, or its anchor or its "@@ N"
	// line hint names no line of the file.
	MatchNotFound MatchReason = iota + 1
	// MatchAmbiguous: the lines, or the hunk's anchor, occur at more than one place that
	// no rule can choose between.
	MatchAmbiguous
	// MatchOverlap: two selected hunks change the same lines, or insert the same lines at
	// one place.
	MatchOverlap
)

// coarse is the exported reason behind each of the matcher's: the private ones say
// which of the two they are, and pick the message.
var coarse = map[match.Reason]MatchReason{
	match.NotFound:        MatchNotFound,
	match.Ambiguous:       MatchAmbiguous,
	match.AnchorNotFound:  MatchNotFound,
	match.AnchorAmbiguous: MatchAmbiguous,
	match.HintPastEnd:     MatchNotFound,
	match.AboveAnchor:     MatchNotFound,
	match.OnAnchor:        MatchAmbiguous,
	match.OutsideBlock:    MatchNotFound,
	match.BlankContext:    MatchAmbiguous,
}

// A MatchError reports a hunk that cannot be placed. Path is the path as authored, Hunk
// the changing-hunk number (from 1, as review rows count; 0 for a context-only locator),
// PayloadLine where the hunk starts in the payload, Reason why it cannot be placed, and
// the other fields the facts of that reason. An error lists a few candidate lines, the
// first in file order, and More counts the rest, so its text stays short however many
// lines a hostile file repeats.
//
// For an anchor of a chain, Anchor is the one at fault and Outer the anchor above it, if
// any. AnchorLine is the 1-based line the anchor named, when that was found. When an
// ambiguous anchor (MatchAmbiguous) could not be settled by the hunk's lines, HunkLines
// holds the first few places those lines occur.
//
// errors.Is(err, &MatchError{}) holds for every MatchError, and
// errors.Is(err, &MatchError{Reason: MatchAmbiguous}) for one with that reason.
//
// Error returns the text written for the model, whole: for a MatchNotFound it runs over
// several lines, the closest region of the file shown as a short diff, because that is
// what lets a model fix the hunk in one retry. A host that logs one line per error logs
// the fields instead (Path, Hunk, PayloadLine, and Reason, which prints by name).
type MatchError struct {
	Path        string
	Hunk        int
	PayloadLine int
	Reason      MatchReason
	Anchor      string
	Outer       string
	Hint        int
	Lines       []int
	// More is how many candidates there are beyond those in Lines; at least that
	// many when counting stopped at its budget (the text then says "more than").
	More       int
	AnchorLine int
	HunkLines  []int
	// Revision is set on a MatchOverlap with hunks a person derived by revising the file in
	// review: the error then speaks to the reviewer, not the model.
	Revision bool
	// Other, Start and End are, for a MatchOverlap, the number of the other hunk and the
	// 1-based first and last file lines this hunk changes; End is Start-1 when both hunks
	// insert the same lines at one place, before line Start.
	Other, Start, End int
	// FileLines is, for a MatchNotFound whose "@@ N" line hint lies past the end of
	// the file, the number of lines of the file.
	FileLines int
	// near is, for a MatchNotFound, the region of the file most like the hunk, and for a
	// hunk found only past the body its anchor opens, the region of the body like it.
	near *match.NearMiss

	why match.Reason // the matcher's reason behind Reason, which picks the message; 0 for an overlap
	// appliedAt is, for a MatchNotFound, the 1-based line where the hunk's new side
	// occurs: the hunk looks applied already. 0 otherwise.
	appliedAt int
	// occurs is, for a MatchNotFound with no near region, whether some of the hunk's
	// lines occur in the file all the same, too often for one region to stand out.
	occurs bool
	// unexplained is set on a MatchNotFound not searched for its closest region: many
	// hunks of the file missed before it.
	unexplained bool
	// blockEnd is, for a hunk found only past the body its anchor opens, the last line
	// of that body.
	blockEnd int
	// insertAt is, for a hunk whose only context is the empty lines that end it, the
	// 1-based line it goes before when they are read as a separator.
	insertAt int

	pass match.Pass // the pass at which an ambiguity was found

	moreCapped bool // counting stopped at countBudget: More is a lower bound

	// An Edit's error (see editReason): an empty old text, an insertion past the end,
	// old text found several times as written or as folded, or not at all.
	editEmpty, editInsert, editExact bool
	editLine                         int
	editFold                         match.Pass
	editOld                          string
	hunkMore                         int  // how many places beyond HunkLines the hunk's lines occur
	hunkCapped                       bool // counting them stopped at countBudget
}

// Is reports whether target is a *MatchError with the same Reason, or with no Reason.
func (e *MatchError) Is(target error) bool {
	t, ok := target.(*MatchError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason)
}

func (e *MatchError) Error() string {
	var b strings.Builder
	b.WriteString(e.where())
	b.WriteString(": ")
	b.WriteString(e.reason())
	if near := e.nearText(); near != "" {
		b.WriteString("\n" + near)
	}
	return show.Clip(b.String(), show.ErrorBudget)
}

// nearText shows, for a MatchNotFound, the region of the file most like the hunk, as a
// short diff; "" when there is none.
func (e *MatchError) nearText() string {
	if e.near == nil {
		return ""
	}
	return fmt.Sprintf("The closest region starts at line %d, where %d of the hunk's %d expected lines occur "+
		"('-' is what the hunk expects and the file lacks, '+' is what the file has there):\n%s",
		e.near.Start, e.near.Agree, e.near.Of, e.near.Diff)
}

func (e *MatchError) where() string {
	switch {
	case e.Hunk > 0 && e.PayloadLine > 0:
		return fmt.Sprintf("%s: hunk %d (payload line %d)", show.Path(e.Path), e.Hunk, e.PayloadLine)
	case e.Hunk > 0: // a hunk a person's revision derived: it has no payload line
		return fmt.Sprintf("%s: hunk %d", show.Path(e.Path), e.Hunk)
	case e.PayloadLine > 0:
		return fmt.Sprintf("%s: context-only hunk (payload line %d)", show.Path(e.Path), e.PayloadLine)
	}
	return show.Path(e.Path)
}

// places is how many candidates there are in all, with thousands grouped.
func (e *MatchError) places() string {
	if e.moreCapped {
		return "more than " + show.Thousands(len(e.Lines)+e.More)
	}
	return show.Thousands(len(e.Lines) + e.More)
}

// lines lists the candidates, then how many more there are.
func (e *MatchError) lines() string { return show.WithMore(e.Lines, e.More, e.moreCapped) }

// hunkLines lists where the hunk's lines occur, then how many more places there are.
func (e *MatchError) hunkLines() string { return show.WithMore(e.HunkLines, e.hunkMore, e.hunkCapped) }
