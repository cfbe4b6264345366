package applypatch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// A Placement says where a hunk landed in its file's baseline (M1–M8).
type Placement struct {
	// Start is the 0-based index of the first baseline line the hunk covers; for a hunk
	// of '+' lines only, the baseline line it is inserted before.
	Start int
	// Len is the number of baseline lines the hunk covers (its context and '-' lines).
	Len int
	// Pass is the rung of the ladder that matched.
	Pass Pass
	// Trimmed counts trailing empty context lines of the hunk that the file does not
	// have (a model's blank separator line); they are neither required nor written.
	Trimmed int
}

// Line returns the 1-based baseline line of the placement's start.
func (pl Placement) Line() int { return pl.Start + 1 }

// placer places the hunks of one Update against its baseline, in payload order, keeping
// the order cursor of M3.
type placer struct {
	t      *text
	idx    *lineIndex
	blocks blocks
	cursor int
	// anchorsBehind is set while anchors are looked for without the order cursor.
	anchorsBehind bool
}

// newPlacer prepares to place hunks in t.
func newPlacer(t *text, hunks []Hunk) *placer {
	return &placer{t: t, idx: newLineIndex(t, hunks), blocks: blocks{t: t}}
}

// place finds the one place for h. On success the cursor moves past it; on failure it
// stays, so later hunks are still tried and every failure can be reported at once.
func (pl *placer) place(h *Hunk) (Placement, *MatchError) {
	sc, err := pl.anchors(h)
	if err != nil {
		return Placement{}, err
	}
	old := h.Old()
	if len(old) == 0 {
		return pl.insertion(h, sc)
	}
	got, err := pl.locate(h, old, sc)
	if err != nil && err.Reason == AboveAnchor {
		got, err, sc = pl.behindCursor(h, old, got, err, sc)
	}
	if err != nil {
		return Placement{}, err
	}
	got.Pass = max(got.Pass, sc.pass)
	pl.cursor = got.Start + got.Len
	return got, nil
}

// locate searches for the hunk's old lines, and when they are missing, once more without
// the empty context lines that end the hunk (P7).
func (pl *placer) locate(h *Hunk, old []string, sc scope) (Placement, *MatchError) {
	got, err := pl.search(h, old, sc)
	if err != nil && err.missing() {
		if trimmed := trailingEmpty(h); trimmed > 0 && trimmed < len(old) {
			if got2, err2 := pl.search(h, old[:len(old)-trimmed], sc); err2 == nil {
				got2.Trimmed = trimmed
				got, err = got2, nil
			}
		}
	}
	return got, err
}

// trailingEmpty counts the empty context lines that end a hunk.
func trailingEmpty(h *Hunk) int {
	n := 0
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i] == (Line{Kind: Context}); i-- {
		n++
	}
	return n
}

// search runs the ladder for the hunk's old lines: the first pass with any candidate
// decides, and it must leave exactly one (M2). An End of File hunk is first tried
// anchored to the end, then anywhere (M4).
func (pl *placer) search(h *Hunk, old []string, sc scope) (Placement, *MatchError) {
	if h.EOF {
		if got, err := pl.ladder(h, old, sc, pl.t.count()-len(old)); err == nil || !err.missing() {
			return got, err
		}
	}
	return pl.ladder(h, old, sc, -1)
}

// ladder runs the passes. When the only matches lie above the anchor, the error says so
// (AboveAnchor) rather than that the lines are missing. The candidates are a lazy match
// set, so each tie-break narrows a range of starts by binary search and never empties
// it: below the anchor, inside one of its blocks, else one of its sections (M6), then at
// or after the cursor (M3), then nearest the line hint (M7).
func (pl *placer) ladder(h *Hunk, old []string, sc scope, eofStart int) (Placement, *MatchError) {
	n := pl.t.count()
	if eofStart < 0 && h.EOF && len(old) > n {
		return Placement{}, &MatchError{Reason: NotFound}
	}
	var above *matchSet
	for _, p := range passes {
		ms := pl.idx.matches(old, p, eofStart)
		if ms.first(sc.first()+1, n) < 0 {
			if above == nil && ms.first(0, n) >= 0 {
				above = ms
			}
			continue
		}
		start, err := pl.choose(sc, ms, h, p)
		if err != nil {
			return Placement{}, err
		}
		return Placement{Start: start, Len: len(old), Pass: p}, nil
	}
	if above != nil {
		listed, total, capped := above.list(0, n, listedCandidates)
		return Placement{}, &MatchError{Reason: AboveAnchor, Candidates: oneBased(listed), More: total - len(listed),
			moreCapped: capped, AnchorLine: sc.first() + 1}
	}
	return Placement{}, &MatchError{Reason: NotFound}
}

// listedCandidates is how many candidate lines an error lists before "and N more".
const listedCandidates = 5

// afterCursor narrows several sorted candidates to those at or after the cursor (M3),
// found by binary search; it cannot empty the set.
func (pl *placer) afterCursor(cands []int) []int {
	if len(cands) < 2 {
		return cands
	}
	if i := sort.SearchInts(cands, pl.cursor); i < len(cands) {
		return cands[i:]
	}
	return cands
}

// insertion places a hunk of '+' lines only (P10): below its anchor, before its hinted
// line, or at the end of the file.
func (pl *placer) insertion(h *Hunk, sc scope) (Placement, *MatchError) {
	n := pl.t.count()
	at := n
	switch {
	case !sc.unique():
		return Placement{}, sc.ambiguous(sc.pass)
	case sc.anchored():
		at = sc.first() + 1
	case h.Hint > 0:
		if h.Hint > n+1 {
			return Placement{}, &MatchError{Reason: HintPastEnd, Hint: h.Hint, Candidates: []int{n}}
		}
		at = h.Hint - 1
	}
	pl.cursor = at
	return Placement{Start: at, Pass: sc.pass}, nil
}

func oneBased(cands []int) []int {
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c + 1
	}
	return out
}

// MatchReason says why a hunk could not be placed.
type MatchReason int

const (
	// NotFound: no pass found the hunk's context and removed lines.
	NotFound MatchReason = iota + 1
	// Ambiguous: the lines occur at more than one place that no rule can choose between.
	Ambiguous
	// AnchorNotFound: no line starts with the "@@ TEXT" anchor.
	AnchorNotFound
	// AnchorAmbiguous: several lines start with the anchor.
	AnchorAmbiguous
	// HintPastEnd: an insertion's "@@ N" line hint lies beyond the end of the file.
	HintPastEnd
	// Overlap: two selected hunks change the same lines.
	Overlap
	// AboveAnchor: the hunk's lines occur, but only at or above its "@@ TEXT" anchor line,
	// and a hunk must lie strictly below its anchor (M6).
	AboveAnchor
)

// A MatchError reports a hunk that cannot be placed (M9). Path is the path as authored,
// Hunk the changing-hunk number (from 1, as review rows count; 0 for a context-only
// locator), PayloadLine where the hunk starts in the payload. Candidates are 1-based file
// lines of an ambiguity (or where the lines of an AboveAnchor hunk occur); AnchorLine the
// 1-based line its anchor named, when that was found; Hint the hunk's "@@ N" line hint,
// if any; Near the closest region for a hunk that was not found. An error lists a few
// candidates, the first in file order, and More counts the rest, so its text stays short
// however many lines a hostile file repeats.
//
// For an anchor of a chain, Anchor is the one at fault and Outer the anchor above it, if
// any; an AnchorNotFound error with Outer set has the lines Outer names as Candidates. An
// AnchorAmbiguous error that the hunk's lines could not settle has the first few places
// they occur as HunkLines.
//
// Test for it with errors.As, or errors.Is(err, &MatchError{}).
type MatchError struct {
	Path        string
	Hunk        int
	PayloadLine int
	Reason      MatchReason
	Anchor      string
	Outer       string
	Hint        int
	Candidates  []int
	// More is how many candidates there are beyond those in Candidates; at least that
	// many when counting stopped at its budget (the text then says "more than").
	More       int
	AnchorLine int
	HunkLines  []int
	// Revision is set on an Overlap with hunks a person derived by revising the file in
	// review: the error then speaks to the reviewer, not the model.
	Revision bool
	Pass     Pass
	Near     *NearMiss

	moreCapped bool // counting stopped at countBudget: More is a lower bound
	hunkMore   int  // how many places beyond HunkLines the hunk's lines occur
	hunkCapped bool // counting them stopped at countBudget
}

// missing reports whether the hunk was not found where it may go, so a looser attempt
// (unanchored End of File, trailing blank lines trimmed) may still place it.
func (e *MatchError) missing() bool { return e.Reason == NotFound || e.Reason == AboveAnchor }

// A NearMiss is the region of the file most like a hunk that was not found: Start is its
// 1-based first line, Agree how many of the hunk's Of expected lines occur there, and Diff
// shows the hunk's expected lines against the file's.
type NearMiss struct {
	Start, Agree, Of int
	Diff             string
}

// Is reports whether target is a *MatchError.
func (e *MatchError) Is(target error) bool {
	_, ok := target.(*MatchError)
	return ok
}

func (e *MatchError) Error() string {
	var b strings.Builder
	b.WriteString(e.where())
	b.WriteString(": ")
	b.WriteString(e.reason())
	if e.Near != nil {
		fmt.Fprintf(&b, "\nThe closest region starts at line %d, where %d of the hunk's %d expected lines occur "+
			"('-' is what the hunk expects and the file lacks, '+' is what the file has there):\n%s",
			e.Near.Start, e.Near.Agree, e.Near.Of, e.Near.Diff)
	}
	return clip(b.String(), errorBudget)
}

func (e *MatchError) where() string {
	switch {
	case e.Hunk > 0 && e.PayloadLine > 0:
		return fmt.Sprintf("%s: hunk %d (payload line %d)", showPath(e.Path), e.Hunk, e.PayloadLine)
	case e.Hunk > 0: // a hunk a person's revision derived: it has no payload line
		return fmt.Sprintf("%s: hunk %d", showPath(e.Path), e.Hunk)
	case e.PayloadLine > 0:
		return fmt.Sprintf("%s: context-only hunk (payload line %d)", showPath(e.Path), e.PayloadLine)
	}
	return showPath(e.Path)
}

func (e *MatchError) reason() string {
	switch e.Reason {
	case NotFound:
		if e.Near == nil {
			return "none of the hunk's context or '-' lines occur in the file. Re-read the file (is it the right path?) and resend the hunk with lines copied from it."
		}
		return "the hunk's context and '-' lines were not found together in the file. Re-read the file and resend the hunk with its context and '-' lines copied exactly."
	case Ambiguous:
		if e.Hint > 0 {
			return fmt.Sprintf("the hunk's lines occur at %s places (lines %s) and its line hint '@@ %d' is as near "+
				"to more than one; add context lines that make it unique, or an '@@ TEXT' line naming a unique line above it.",
				e.places(), e.lines(), e.Hint)
		}
		return fmt.Sprintf("the hunk's lines occur at %s places (lines %s) and nothing decides between them; "+
			"add context lines that make it unique, an '@@ TEXT' line naming a unique line above it, or a line hint '@@ N'.",
			e.places(), e.lines())
	case AnchorNotFound:
		if e.Outer != "" {
			return fmt.Sprintf("no line below the anchor '@@ %s' (%s %s) starts with the anchor '@@ %s'; "+
				"name a line that exists inside '%s', or drop the anchor.",
				e.Outer, pluralWord(len(e.Candidates), "line", "lines"), joinInts(e.Candidates), e.Anchor, e.Outer)
		}
		return fmt.Sprintf("no line starts with the anchor '@@ %s'; name a line that exists above the hunk, or drop the anchor.", e.Anchor)
	case AnchorAmbiguous:
		if len(e.HunkLines) > 0 {
			return fmt.Sprintf("the anchor '@@ %s' names %s lines (%s) and the hunk's lines (at %s %s) do not lie "+
				"inside the block of exactly one of them; add the line that encloses the right one as an anchor "+
				"above it ('@@ class Name' then '@@ %s'), or context lines that make the hunk unique.",
				e.Anchor, e.places(), e.lines(), pluralWord(len(e.HunkLines)+e.hunkMore, "line", "lines"),
				e.hunkLines(), e.Anchor)
		}
		return fmt.Sprintf("the anchor '@@ %s' names %s lines (%s); use a longer anchor that names one line.",
			e.Anchor, e.places(), e.lines())
	case AboveAnchor:
		return fmt.Sprintf("the hunk's lines occur only at %s %s, not below the anchor '@@ %s' (line %d); "+
			"the anchor must name a line above the hunk, so name one there, or drop the anchor.",
			pluralWord(len(e.Candidates)+e.More, "line", "lines"), e.lines(), e.Anchor, e.AnchorLine)
	case HintPastEnd:
		n := e.Candidates[0]
		return fmt.Sprintf("the line hint '@@ %d' is past the end of the file, which has %d %s; "+
			"use '@@ N' with N at most %d, or drop the hint to append at the end.", e.Hint, n, pluralWord(n, "line", "lines"), n+1)
	case Overlap:
		if e.Revision {
			return fmt.Sprintf("the hunk no longer applies on top of the revision of this file (it would change "+
				"lines %d to %d again); deselect it, or revise the file again.", e.Candidates[1], max(e.Candidates[2], e.Candidates[1]))
		}
		return fmt.Sprintf("the hunk changes lines that hunk %d also changes (it changes lines %d to %d); "+
			"merge the two hunks into one, or give each its own lines.", e.Candidates[0], e.Candidates[1], max(e.Candidates[2], e.Candidates[1]))
	}
	return "the hunk cannot be placed"
}

// places is how many candidates there are in all, with thousands grouped.
func (e *MatchError) places() string {
	if e.moreCapped {
		return "more than " + groupThousands(len(e.Candidates)+e.More)
	}
	return groupThousands(len(e.Candidates) + e.More)
}

// lines lists the candidates, then how many more there are.
func (e *MatchError) lines() string { return withMore(e.Candidates, e.More, e.moreCapped) }

// hunkLines lists where the hunk's lines occur, then how many more places there are.
func (e *MatchError) hunkLines() string { return withMore(e.HunkLines, e.hunkMore, e.hunkCapped) }

// withMore lists lines, then how many more there are ("over" that many when counting
// stopped at its budget).
func withMore(lines []int, more int, capped bool) string {
	switch {
	case capped:
		return joinInts(lines) + " and over " + groupThousands(more) + " more"
	case more > 0:
		return joinInts(lines) + " and " + groupThousands(more) + " more"
	}
	return joinInts(lines)
}

// groupThousands writes n with commas between groups of three digits: 199,995.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
