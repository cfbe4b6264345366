package applypatch

import (
	"sort"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/show"
)

// Line returns the 1-based baseline line of the placement's start.
func (pl placement) line() int { return pl.Start + 1 }

// placer places the hunks of one Update against its baseline, in payload order, keeping
// the order cursor of M3.
type placer struct {
	t      *lines.Text
	idx    *lineIndex
	blocks blocks
	cursor int
	// anchorsBehind is set while anchors are looked for without the order cursor.
	anchorsBehind bool
	// old holds the old lines of the hunk being placed: one slice for every hunk, so
	// placing a hunk allocates none.
	old []string
}

// newPlacer prepares to place hunks in t.
func newPlacer(t *lines.Text, hunks []Hunk) *placer { return placerOf(newLineIndex(t, hunks)) }

// placerOf prepares to place hunks with an index of their text.
func placerOf(idx *lineIndex) *placer {
	return &placer{t: idx.t, idx: idx, blocks: blocks{t: idx.t}}
}

// place finds the one place for h. On success the cursor moves past it; on failure it
// stays, so later hunks are still tried and every failure can be reported at once.
func (pl *placer) place(h *Hunk) (placement, *MatchError) {
	sc, err := pl.anchors(h)
	if err != nil {
		return placement{}, err
	}
	pl.old = h.appendSide(pl.old[:0], LineRemove)
	old := pl.old
	// The index remembers the last lines it gave candidates for by their address, which
	// the next hunk's lines share: forget them.
	pl.idx.loose = looseMemo{}
	if len(old) == 0 {
		return pl.insertion(h, sc)
	}
	got, err := pl.locate(h, old, sc)
	if err != nil && err.kind() == matchAboveAnchor {
		got, err, sc = pl.behindCursor(h, old, got, err, sc)
	}
	if err != nil {
		return placement{}, err
	}
	got.Pass = max(got.Pass, sc.pass)
	pl.cursor = got.Start + got.Len
	return got, nil
}

// locate searches for the hunk's old lines, and when they are missing, once more without
// the empty context lines that end the hunk.
func (pl *placer) locate(h *Hunk, old []string, sc scope) (placement, *MatchError) {
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
	for i := len(h.Lines) - 1; i >= 0 && h.Lines[i] == (Line{Kind: LineContext}); i-- {
		n++
	}
	return n
}

// search runs the ladder for the hunk's old lines: the first pass with any candidate
// decides, and it must leave exactly one. An End of File hunk is first tried
// anchored to the end, then anywhere.
func (pl *placer) search(h *Hunk, old []string, sc scope) (placement, *MatchError) {
	if h.EOF {
		if got, err := pl.ladder(h, old, sc, pl.t.Count()-len(old)); err == nil || !err.missing() {
			return got, err
		}
	}
	return pl.ladder(h, old, sc, -1)
}

// ladder runs the passes. When the only matches lie above the anchor, the error says so
// (AboveAnchor) rather than that the lines are missing. The candidates are a lazy match
// set, so each tie-break narrows a range of starts by binary search and never empties
// it: below the anchor, inside one of its blocks, else one of its sections, then at
// or after the cursor, then nearest the line hint.
func (pl *placer) ladder(h *Hunk, old []string, sc scope, eofStart int) (placement, *MatchError) {
	n := pl.t.Count()
	if eofStart < 0 && h.EOF && len(old) > n {
		return placement{}, &MatchError{Reason: MatchNotFound}
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
			return placement{}, err
		}
		return placement{Start: start, Len: len(old), Pass: p}, nil
	}
	if above != nil {
		listed, total, capped := above.list(0, n, listedCandidates)
		err := matchErr(matchAboveAnchor)
		err.Lines, err.More, err.moreCapped, err.AnchorLine = show.OneBased(listed), total-len(listed), capped, sc.first()+1
		return placement{}, err
	}
	return placement{}, &MatchError{Reason: MatchNotFound}
}

// listedCandidates is how many candidate lines an error lists before "and N more".
const listedCandidates = 5

// afterCursor narrows several sorted candidates to those at or after the cursor,
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

// insertion places a hunk of '+' lines only: below its anchor, before its hinted
// line, or at the end of the file.
func (pl *placer) insertion(h *Hunk, sc scope) (placement, *MatchError) {
	n := pl.t.Count()
	at := n
	switch {
	case !sc.unique():
		return placement{}, sc.ambiguous(sc.pass)
	case sc.anchored():
		at = sc.first() + 1
	case h.Hint > 0:
		if h.Hint > n+1 {
			err := matchErr(matchHintPastEnd)
			err.Hint, err.FileLines = h.Hint, n
			return placement{}, err
		}
		at = h.Hint - 1
	}
	pl.cursor = at
	return placement{Start: at, Pass: sc.pass}, nil
}
