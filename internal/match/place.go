// Package match places each hunk of an Update at exactly one place of a text, or says
// precisely why not. It runs the ladder of passes (exact, then ignoring whitespace, then
// folding typographic punctuation), looks lines up in an index of the text, follows "@@"
// anchors into their blocks and sections, keeps the order cursor, weighs line hints, and
// finds the region most like a hunk it cannot place.
//
// It never reads files and never words an error: a [Miss] holds the facts (a reason,
// lines, counts) that the caller words for the model. It never breaks a tie by a rule it
// cannot state: where its rules leave several places, it refuses them all.
package match

import (
	"sort"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/show"
)

// A Hunk is what the matcher reads of one hunk of an Update: its lines, each with its
// kind, its chain of "@@" anchors, its line hint and whether it ends at the end of the
// file. The caller's hunks implement it without a copy of their lines.
type Hunk interface {
	// Chain returns the hunk's anchors, outermost first; none when it has no anchor.
	Chain() []string
	// Len returns how many lines the hunk has, of every kind.
	Len() int
	// LineAt returns the kind of line i and its text without the marker.
	LineAt(i int) (Kind, string)
	// LineHint returns the 1-based line number of the hunk's "@@ N" line hint, or 0.
	LineHint() int
	// AtEOF reports whether the hunk ends with "*** End of File".
	AtEOF() bool
}

// Kind says whether a hunk line is kept, removed or added; it is the line's marker.
type Kind byte

const (
	// Context lines must be present in the text and are kept.
	Context Kind = ' '
	// Remove lines must be present in the text and are removed.
	Remove Kind = '-'
	// Add lines are added.
	Add Kind = '+'
)

// appendSide appends the hunk's context lines and its lines of kind k to dst.
func appendSide(h Hunk, dst []string, k Kind) []string {
	for i := range h.Len() {
		if kind, text := h.LineAt(i); kind == Context || kind == k {
			dst = append(dst, text)
		}
	}
	return dst
}

// side returns the hunk's context lines and its lines of kind k: with Remove the lines
// it expects in the text, with Add those it leaves in their place.
func side(h Hunk, k Kind) []string { return appendSide(h, make([]string, 0, h.Len()), k) }

// A Place says where a hunk landed in its file's baseline.
type Place struct {
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
func (pl Place) Line() int { return pl.Start + 1 }

// A Placer places the hunks of one Update against its baseline, in payload order, keeping
// the order cursor of M3.
type Placer struct {
	t      *lines.Text
	idx    *lineIndex
	blocks blocks
	cursor int
	// changed is where the last hunk placed changed the text, in half lines (see
	// changeSpan), or -1 when no hunk changed it yet or a locator came after; from it
	// each hunk's cursor follows (see cursorFor).
	changed int
	// anchorsBehind is set while anchors are looked for without the order cursor.
	anchorsBehind bool
	// old holds the old lines of the hunk being placed: one slice for every hunk, so
	// placing a hunk allocates none.
	old []string
	// locator is the last line of the hunk placed just before, when that hunk only
	// locates (context lines alone), else -1: it scopes the next hunk (see Place).
	locator int
	// explained counts the misses Explain searched the closest region for.
	explained int
	// bodyRead counts the lines read in anchored bodies, against bodyBudget.
	bodyRead int
}

// New prepares to place hunks in t.
func New(t *lines.Text, hunks []Hunk) *Placer { return placerOf(newLineIndex(t, hunks)) }

// Index splits s into lines and prepares to place hunks in them, indexing the hunks' key
// lines in the same pass over s. name is the text's file name: the headings of a Markdown
// document open blocks.
func Index(s string, hunks []Hunk, name string) (*lines.Text, *Placer) {
	t, idx := indexText(s, hunks)
	pl := placerOf(idx)
	pl.blocks.markdown = isMarkdown(name)
	return t, pl
}

// IndexLines is Index for a text split already: an undo, which compares the lines with
// the ones it expects before it places anything, splits the text once.
func IndexLines(t *lines.Text, hunks []Hunk, name string) *Placer {
	pl := placerOf(newLineIndex(t, hunks))
	pl.blocks.markdown = isMarkdown(name)
	return pl
}

// placerOf prepares to place hunks with an index of their text.
func placerOf(idx *lineIndex) *Placer {
	return &Placer{t: idx.t, idx: idx, blocks: blocks{t: idx.t}, locator: -1, changed: -1}
}

// Place finds the one place for h. On success the cursor moves past it; on failure it
// stays, so later hunks are still tried and every failure can be reported at once.
func (pl *Placer) Place(h Hunk) (Place, *Miss) {
	first, last, changes := changeSpan(h)
	pl.cursor = pl.cursorFor(first, changes)
	sc, err := pl.anchors(h)
	if err != nil {
		return Place{}, err
	}
	pl.old = appendSide(h, pl.old[:0], Remove)
	old := pl.old
	// The index remembers the last lines it gave candidates for by their address, which
	// the next hunk's lines share: forget them.
	pl.idx.loose = looseMemo{}
	if len(old) == 0 {
		return pl.insertion(h, sc)
	}
	got, err := pl.locate(h, old, sc)
	if at, ok := pl.afterLocator(h, old, sc); ok && (err != nil || at.Pass <= got.Pass) {
		got, err = at, nil // the repeat, unless the lines lie elsewhere at a stricter pass
	}
	if err != nil && err.Reason == AboveAnchor {
		got, err, sc = pl.behindCursor(h, old, got, err, sc)
	}
	if err != nil && err.Reason == Ambiguous && !sc.anchored() && pl.locator >= 0 {
		// A hunk that follows a locator and has several places below it goes to the one
		// inside the block the locator's last line opens, when exactly one is there.
		if in, miss := pl.locate(h, old, pl.locatorScope()); miss == nil {
			got, err = in, nil
		}
	}
	if err == nil {
		err = pl.onAnchor(h, old, sc, got)
	}
	if err == nil {
		err = pl.outsideBlock(h, old, sc, got)
	}
	if err == nil || err.Reason == Ambiguous {
		err = pl.blankContext(h, old, sc, got, err)
	}
	pl.locator = -1
	if err != nil {
		return Place{}, err
	}
	got.Pass = max(got.Pass, sc.pass)
	pl.cursor, pl.changed = got.Start+got.Len, -1
	if changes {
		pl.changed = 2*got.Start + last
	}
	if locates(h) {
		pl.locator = got.Start + got.Len - 1
	}
	return got, nil
}

// cursorFor is the order cursor of M3 for a hunk whose first change lies first half
// lines into it (see changeSpan), when it changes anything: the first start at which
// that change comes after the last change of the hunk placed before it, so that two
// hunks may share context (the lines after one hunk's change may lead the next) but
// never reorder their changes. After a locator, or for a hunk that changes nothing, it
// is the line after the hunk placed before.
func (pl *Placer) cursorFor(first int, changes bool) int {
	if pl.changed < 0 || !changes {
		return pl.cursor
	}
	// A start c puts h's first change at 2c+first half lines, which must exceed changed.
	return max(0, floorHalf(pl.changed-first)+1)
}

// floorHalf is n/2 rounded down, for negative n too.
func floorHalf(n int) int { return n >> 1 }

// changeSpan says where a hunk's first and last changes lie, counted in half lines from
// its start: removing the hunk's old line i is 2i+1, inserting before its old line i is
// 2i. ok is false for a hunk without changes.
func changeSpan(h Hunk) (first, last int, ok bool) {
	at := 0 // the old line the hunk has reached
	for i := range h.Len() {
		k, _ := h.LineAt(i)
		pos := 2 * at
		switch k {
		case Context:
			at++
			continue
		case Remove:
			pos = 2*at + 1
			at++
		}
		if !ok {
			first, ok = pos, true
		}
		last = pos
	}
	return first, last, ok
}

// outsideBlock refuses a hunk placed below the one line its anchor names, when that
// line opens a body and the hunk starts past it, while the anchor says it lies inside:
// the body was edited since the hunk was written, so its lines are found only elsewhere.
// Two things show it. The hunk lies in the body of a later line that the anchor's text
// names too ("@@ class B:" then "@@ def f", and the lines are found only in a later
// class's f), or the anchored body holds the hunk's lines edited (see editedBody). A
// hunk past the anchor's body with neither (the function below the one an anchor
// names) stays placed.
func (pl *Placer) outsideBlock(h Hunk, old []string, sc scope, got Place) *Miss {
	if !sc.anchored() || !sc.unique() || got.Len == 0 {
		return nil
	}
	a, end := sc.first(), sc.at[0].block
	if got.Start <= end || !pl.blocks.opens(a) {
		return nil
	}
	last := pl.blocks.bodyLast(a)
	var near *NearMiss
	if !pl.inCopy(got.Start, end, sc) {
		if near = pl.editedBody(old, a+1, last+1, got.Start); near == nil {
			return nil
		}
	}
	chain := h.Chain()
	return &Miss{Reason: OutsideBlock, Anchor: chain[len(chain)-1], Lines: []int{got.Start + 1}, AnchorLine: a + 1,
		BlockEnd: last + 1, Near: near}
}

// inCopy reports whether line c lies past end, the last line of the body of the line
// scope sc's anchor names, inside the body of a later line that the anchor's text names
// too, at the anchor's pass: a copy of the anchored body.
func (pl *Placer) inCopy(c, end int, sc scope) bool {
	want := normalize[sc.pass](sc.text)
	for p := pl.blocks.enclosing(c); p > end; p = pl.blocks.enclosing(p) {
		if strings.HasPrefix(normalize[sc.pass](pl.t.Line(p)), want) {
			return true
		}
	}
	return false
}

// locatorScope is the scope a locator gives the hunk after it: its last line, as if an
// anchor named it, with the block that line opens.
func (pl *Placer) locatorScope() scope {
	at := pl.locator
	sc := scope{at: []anchorLine{{line: at, block: pl.blocks.blockEnd(at), section: pl.t.Count()}}}
	return sc.withReach()
}

// locates reports whether a hunk only locates: it has lines, all of them context.
func locates(h Hunk) bool {
	for i := range h.Len() {
		if k, _ := h.LineAt(i); k != Context {
			return false
		}
	}
	return h.Len() > 0
}

// locate searches for the hunk's old lines, and when they are missing, once more without
// the empty context lines that end the hunk: a hunk that then has none is the insertion
// of its '+' lines. It does not retry a hunk that looks applied already.
func (pl *Placer) locate(h Hunk, old []string, sc scope) (Place, *Miss) {
	got, err := pl.search(h, old, sc)
	if err == nil || !err.missing() {
		return got, err
	}
	trimmed := trailingEmpty(h)
	var got2 Place
	var err2 *Miss
	switch {
	case trimmed == 0 || trimmed == len(old) && len(old) == h.Len():
		return got, err // no blank line to drop, or nothing but blank lines
	case pl.appliedAt(h) > 0:
		// The file holds what the whole hunk leaves, blank lines and all: it looks applied
		// already, and without them its old lines could name another place.
		return got, err
	case trimmed == len(old):
		got2, err2 = pl.insertion(h, sc)
	default:
		got2, err2 = pl.search(h, old[:len(old)-trimmed], sc)
	}
	if err2 != nil {
		if err.Reason == NotFound && (err2.Reason == AboveAnchor || err2.Reason == Ambiguous) {
			// The lines occur without the blank lines, only not below the anchor, or at
			// several places: say so, rather than that they are missing.
			return got2, err2
		}
		return got, err
	}
	got2.Trimmed = trimmed
	return got2, nil
}

// trailingEmpty counts the empty context lines that end a hunk.
func trailingEmpty(h Hunk) int {
	n := 0
	for i := h.Len() - 1; i >= 0 && emptyContext(h.LineAt(i)); i-- {
		n++
	}
	return n
}

// emptyContext reports whether a line of kind k and text s is an empty context line.
func emptyContext(k Kind, s string) bool { return k == Context && s == "" }

// search runs the ladder for the hunk's old lines: the first pass with any candidate
// decides, and it must leave exactly one. An End of File hunk is first tried
// anchored to the end, then anywhere.
func (pl *Placer) search(h Hunk, old []string, sc scope) (Place, *Miss) {
	if h.AtEOF() {
		if got, err := pl.ladder(h, old, sc, pl.t.Count()-len(old)); err == nil || !err.missing() {
			return got, err
		}
	}
	return pl.ladder(h, old, sc, -1)
}

// ladder runs the passes. When the only matches lie above the anchor, the miss says so
// (AboveAnchor) rather than that the lines are missing. The candidates are a lazy match
// set, so each tie-break narrows a range of starts by binary search and never empties
// it: below the anchor, inside one of its blocks, else one of its sections, then at
// or after the cursor, then nearest the line hint.
func (pl *Placer) ladder(h Hunk, old []string, sc scope, eofStart int) (Place, *Miss) {
	n := pl.t.Count()
	if eofStart < 0 && h.AtEOF() && len(old) > n {
		return Place{}, &Miss{Reason: NotFound}
	}
	var sets [2]matchSet // a pass's set, and the first set with starts above the anchor
	ms, above := &sets[0], (*matchSet)(nil)
	for _, p := range passes {
		pl.idx.matches(ms, old, p, eofStart)
		if ms.first(sc.first()+1, n) < 0 {
			if above == nil && ms.first(0, n) >= 0 {
				above, ms = ms, &sets[1]
			}
			continue
		}
		start, err := pl.choose(sc, ms, h, p)
		if err != nil {
			return Place{}, err
		}
		return Place{Start: start, Len: len(old), Pass: p}, nil
	}
	if above != nil {
		listed, total, capped := above.list(0, n, Listed)
		err := &Miss{Reason: AboveAnchor}
		err.Lines, err.More, err.MoreCapped, err.AnchorLine = show.OneBased(listed), total-len(listed), capped, sc.first()+1
		return Place{}, err
	}
	return Place{}, &Miss{Reason: NotFound}
}

// Listed is how many candidate lines a [Miss] lists before "and N more".
const Listed = 5

// afterCursor narrows several sorted candidates to those at or after the cursor,
// found by binary search; it cannot empty the set.
func (pl *Placer) afterCursor(cands []int) []int {
	if len(cands) < 2 {
		return cands
	}
	if i := sort.SearchInts(cands, pl.cursor); i < len(cands) {
		return cands[i:]
	}
	return cands
}

// insertion places a hunk of '+' lines only: below its anchor, before its hinted
// line, or at the end of the file.
func (pl *Placer) insertion(h Hunk, sc scope) (Place, *Miss) {
	at, err := pl.insertionAt(h, sc)
	if err != nil {
		return Place{}, err
	}
	pl.cursor, pl.changed = at, 2*at
	return Place{Start: at, Pass: sc.pass}, nil
}

// insertionAt is the line a hunk of '+' lines only is inserted before.
func (pl *Placer) insertionAt(h Hunk, sc scope) (int, *Miss) {
	n := pl.t.Count()
	switch {
	case !sc.unique():
		return 0, sc.ambiguous(sc.pass)
	case sc.anchored():
		return sc.first() + 1, nil
	case h.LineHint() > 0:
		if h.LineHint() > n+1 {
			err := &Miss{Reason: HintPastEnd}
			err.Hint, err.FileLines = h.LineHint(), n
			return 0, err
		}
		return h.LineHint() - 1, nil
	}
	return n, nil
}

// blankContext refuses a hunk of '+' lines whose only context is the empty lines that
// end it, placed at got (or ambiguous, err), when those lines read two ways that give
// different files: as the lines to insert above, or as the blank line a model leaves
// before the next marker, when the hunk is an insertion.
func (pl *Placer) blankContext(h Hunk, old []string, sc scope, got Place, err *Miss) *Miss {
	if trailingEmpty(h) != len(old) || len(old) == h.Len() || got.Trimmed > 0 {
		return err
	}
	at, ierr := pl.insertionAt(h, sc)
	if ierr != nil || err == nil && at == got.Start {
		return err
	}
	m := &Miss{Reason: BlankContext, InsertAt: at + 1, FileLines: pl.t.Count()}
	if err != nil {
		m.Lines, m.More, m.MoreCapped = err.Lines, err.More, err.MoreCapped
	} else {
		m.Lines = []int{got.Start + 1}
	}
	return m
}

// PlaceAt places h and reports whether it landed at start; if not, the cursor is left
// where it was.
func (pl *Placer) PlaceAt(h Hunk, start int) (Place, bool) {
	cursor, changed := pl.cursor, pl.changed
	got, err := pl.Place(h)
	if err != nil || got.Start != start {
		pl.cursor, pl.changed = cursor, changed
		return Place{}, false
	}
	return got, true
}

// At reports whether a hunk's lines lie in the text where its placement p says, at
// its recorded pass: how a placement saved with a review is checked against its baseline.
func At(t *lines.Text, h Hunk, p Place) bool {
	old := side(h, Remove)
	if p.Pass < Exact || p.Pass > Punctuation || p.Trimmed < 0 || p.Trimmed > trailingEmpty(h) || p.Trimmed > len(old) {
		return false
	}
	old = old[:len(old)-p.Trimmed]
	if p.Len != len(old) || p.Start < 0 || p.Start+p.Len > t.Count() {
		return false
	}
	norm := normalize[p.Pass]
	for i, l := range old {
		if norm(t.Line(p.Start+i)) != norm(l) {
			return false
		}
	}
	return true
}
