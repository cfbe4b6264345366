package applypatch

import (
	"fmt"
	"slices"
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
	cursor int
	// sectionEnd is the next line the current hunk's anchor also names, or the end of
	// the file.
	sectionEnd int
}

// newPlacer prepares to place hunks in t.
func newPlacer(t *text, hunks []Hunk) *placer {
	return &placer{t: t, idx: newLineIndex(t, hunks)}
}

// place finds the one place for h. On success the cursor moves past it; on failure it
// stays, so later hunks are still tried and every failure can be reported at once.
func (pl *placer) place(h *Hunk) (Placement, *MatchError) {
	anchorAt, anchorPass := -1, Exact
	if h.Anchor != "" {
		at, pass, err := pl.anchor(h)
		if err != nil {
			return Placement{}, err
		}
		anchorAt, anchorPass = at, pass
	}
	old := h.Old()
	if len(old) == 0 {
		return pl.insertion(h, anchorAt, anchorPass)
	}
	got, err := pl.search(h, old, anchorAt)
	if err != nil && err.missing() {
		if trimmed := trailingEmpty(h); trimmed > 0 && trimmed < len(old) {
			if got2, err2 := pl.search(h, old[:len(old)-trimmed], anchorAt); err2 == nil {
				got2.Trimmed = trimmed
				got, err = got2, nil
			}
		}
	}
	if err != nil {
		return Placement{}, err
	}
	got.Pass = max(got.Pass, anchorPass)
	pl.cursor = got.Start + got.Len
	return got, nil
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
func (pl *placer) search(h *Hunk, old []string, anchorAt int) (Placement, *MatchError) {
	if h.EOF {
		if got, err := pl.ladder(h, old, anchorAt, pl.t.count()-len(old)); err == nil || !err.missing() {
			return got, err
		}
	}
	return pl.ladder(h, old, anchorAt, -1)
}

// ladder runs the passes. When the only matches lie above the anchor, the error says so
// (AboveAnchor) rather than that the lines are missing.
func (pl *placer) ladder(h *Hunk, old []string, anchorAt, eofStart int) (Placement, *MatchError) {
	if eofStart < 0 && h.EOF && len(old) > pl.t.count() {
		return Placement{}, &MatchError{Reason: NotFound}
	}
	var above []int
	for _, p := range passes {
		all := pl.idx.find(old, p, eofStart)
		cands := pl.inSection(below(all, anchorAt), anchorAt)
		if len(cands) == 0 {
			if above == nil {
				above = all
			}
			continue
		}
		cands = pl.tieBreak(cands, h.Hint)
		if len(cands) > 1 {
			return Placement{}, &MatchError{Reason: Ambiguous, Candidates: oneBased(cands), Pass: p}
		}
		return Placement{Start: cands[0], Len: len(old), Pass: p}, nil
	}
	if len(above) > 0 {
		return Placement{}, &MatchError{Reason: AboveAnchor, Candidates: oneBased(above), AnchorLine: anchorAt + 1}
	}
	return Placement{}, &MatchError{Reason: NotFound}
}

// inSection narrows several candidates below an anchor to those before the next line
// the anchor also names (M6): "@@ ## Install" means the lines under "## Install", not
// those under "## Install from source". It cannot empty the set.
func (pl *placer) inSection(cands []int, anchorAt int) []int {
	if anchorAt < 0 || len(cands) < 2 {
		return cands
	}
	var in []int
	for _, c := range cands {
		if c < pl.sectionEnd {
			in = append(in, c)
		}
	}
	if len(in) == 0 {
		return cands
	}
	return in
}

// below keeps the candidates strictly below an anchor line (M6).
func below(cands []int, anchorAt int) []int {
	if anchorAt < 0 {
		return cands
	}
	out := cands[:0:0]
	for _, c := range cands {
		if c > anchorAt {
			out = append(out, c)
		}
	}
	return out
}

// tieBreak narrows several candidates: first to those at or after the cursor (M3), then
// to the one nearest the line hint (M7). Neither step can empty the set.
func (pl *placer) tieBreak(cands []int, hint int) []int {
	if len(cands) > 1 {
		var after []int
		for _, c := range cands {
			if c >= pl.cursor {
				after = append(after, c)
			}
		}
		if len(after) > 0 {
			cands = after
		}
	}
	if len(cands) > 1 && hint > 0 {
		cands = nearest(cands, hint-1)
	}
	return cands
}

// nearest returns the candidates closest to target; more than one when equidistant.
func nearest(cands []int, target int) []int {
	best, out := -1, []int(nil)
	for _, c := range cands {
		d := c - target
		if d < 0 {
			d = -d
		}
		switch {
		case best < 0 || d < best:
			best, out = d, []int{c}
		case d == best:
			out = append(out, c)
		}
	}
	return out
}

// anchor finds the line an "@@ TEXT" anchor names: a whole line or a line's prefix,
// unique after the cursor rule (M6).
func (pl *placer) anchor(h *Hunk) (int, Pass, *MatchError) {
	for _, p := range passes {
		want := normalize[p](h.Anchor)
		if want == "" { // an anchor of blanks names no line at this pass
			continue
		}
		named := pl.idx.at(p).withPrefix(want)
		cands := pl.tieBreak(named, 0)
		if whole := pl.wholeLines(cands, want, p); len(cands) > 1 && len(whole) == 1 {
			cands = whole // one line is the anchor itself, the others only start with it
		}
		switch {
		case len(cands) == 1:
			pl.sectionEnd = pl.t.count()
			if i := slices.Index(named, cands[0]); i+1 < len(named) {
				pl.sectionEnd = named[i+1]
			}
			return cands[0], p, nil
		case len(cands) > 1:
			return -1, p, &MatchError{Reason: AnchorAmbiguous, Candidates: oneBased(cands), Pass: p}
		}
	}
	return -1, Exact, &MatchError{Reason: AnchorNotFound}
}

// wholeLines keeps the candidates whose whole line, normalised for pass p, is want.
func (pl *placer) wholeLines(cands []int, want string, p Pass) []int {
	var out []int
	for _, c := range cands {
		if normalize[p](pl.t.line(c)) == want {
			out = append(out, c)
		}
	}
	return out
}

// insertion places a hunk of '+' lines only (P10): below its anchor, before its hinted
// line, or at the end of the file.
func (pl *placer) insertion(h *Hunk, anchorAt int, anchorPass Pass) (Placement, *MatchError) {
	n := pl.t.count()
	at := n
	switch {
	case anchorAt >= 0:
		at = anchorAt + 1
	case h.Hint > 0:
		if h.Hint > n+1 {
			return Placement{}, &MatchError{Reason: HintPastEnd, Hint: h.Hint, Candidates: []int{n}}
		}
		at = h.Hint - 1
	}
	pl.cursor = at
	return Placement{Start: at, Pass: anchorPass}, nil
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
// if any; Near the closest region for a hunk that was not found.
//
// Test for it with errors.As, or errors.Is(err, &MatchError{}).
type MatchError struct {
	Path        string
	Hunk        int
	PayloadLine int
	Reason      MatchReason
	Anchor      string
	Hint        int
	Candidates  []int
	AnchorLine  int
	// Revision is set on an Overlap with hunks a person derived by revising the file in
	// review: the error then speaks to the reviewer, not the model.
	Revision bool
	Pass     Pass
	Near     *NearMiss
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
	return b.String()
}

func (e *MatchError) where() string {
	switch {
	case e.Hunk > 0 && e.PayloadLine > 0:
		return fmt.Sprintf("%s: hunk %d (payload line %d)", e.Path, e.Hunk, e.PayloadLine)
	case e.Hunk > 0: // a hunk a person's revision derived: it has no payload line
		return fmt.Sprintf("%s: hunk %d", e.Path, e.Hunk)
	case e.PayloadLine > 0:
		return fmt.Sprintf("%s: context-only hunk (payload line %d)", e.Path, e.PayloadLine)
	}
	return e.Path
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
			return fmt.Sprintf("the hunk's lines occur at %d places (lines %s) and its line hint '@@ %d' is as near "+
				"to more than one; add context lines that make it unique, or an '@@ TEXT' line naming a unique line above it.",
				len(e.Candidates), joinInts(e.Candidates), e.Hint)
		}
		return fmt.Sprintf("the hunk's lines occur at %d places (lines %s) and nothing decides between them; "+
			"add context lines that make it unique, an '@@ TEXT' line naming a unique line above it, or a line hint '@@ N'.",
			len(e.Candidates), joinInts(e.Candidates))
	case AnchorNotFound:
		return fmt.Sprintf("no line starts with the anchor '@@ %s'; name a line that exists above the hunk, or drop the anchor.", e.Anchor)
	case AnchorAmbiguous:
		return fmt.Sprintf("the anchor '@@ %s' names %d lines (%s); use a longer anchor that names one line.",
			e.Anchor, len(e.Candidates), joinInts(e.Candidates))
	case AboveAnchor:
		return fmt.Sprintf("the hunk's lines occur only at %s %s, not below the anchor '@@ %s' (line %d); "+
			"the anchor must name a line above the hunk, so name one there, or drop the anchor.",
			pluralWord(len(e.Candidates), "line", "lines"), joinInts(e.Candidates), e.Anchor, e.AnchorLine)
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

// nearMissCommon is how often a line may occur and still vote for a near miss: common
// lines ("}", blank lines) say nothing about where a hunk was meant to go.
const nearMissCommon = 64

// nearMiss finds the region of the file most like old, at the loosest pass: each
// occurrence of one of its lines votes for the start it implies, and the start with most
// votes wins (the earliest at or after the cursor among equals).
func (pl *placer) nearMiss(old []string) *NearMiss {
	lv := pl.idx.at(Punctuation)
	votes := map[int]int{}
	best, bestVotes := -1, 0
	for k, w := range normalized(old, Punctuation) {
		ps := lv.positions(w)
		if len(ps) > nearMissCommon {
			continue
		}
		for _, p := range ps {
			s := int(p) - k
			votes[s]++
			if v := votes[s]; v > bestVotes || (v == bestVotes && better(s, best, pl.cursor)) {
				best, bestVotes = s, v
			}
		}
	}
	if best < 0 {
		return nil
	}
	lo, hi := max(best, 0), min(best+len(old), pl.t.count())
	return &NearMiss{Start: lo + 1, Agree: bestVotes, Of: len(old), Diff: nearDiff(old, pl.t.span(lo, hi), lo)}
}

// better prefers starts at or after the cursor, then earlier ones.
func better(s, best, cursor int) bool {
	if (s >= cursor) != (best >= cursor) {
		return s >= cursor
	}
	return s < best
}

// nearDiff shows the hunk's expected lines against the file's lines from line lo: file
// line numbers on kept and '+' lines, '-' for expected lines the file lacks.
func nearDiff(old, file []string, lo int) string {
	var b strings.Builder
	for _, op := range diffLines(normalized(old, Punctuation), normalized(file, Punctuation)) {
		switch op.Kind {
		case Context:
			fmt.Fprintf(&b, "  %6d  %s\n", lo+op.B+1, file[op.B])
		case Remove:
			fmt.Fprintf(&b, "- %6s  %s\n", "", old[op.A])
		case Insert:
			fmt.Fprintf(&b, "+ %6d  %s\n", lo+op.B+1, file[op.B])
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
