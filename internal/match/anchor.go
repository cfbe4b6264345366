package match

import (
	"slices"
	"sort"
	"strings"

	"github.com/applypatch/applypatch/internal/show"
)

// A scope is where a hunk's anchors leave it: the lines its last anchor names,
// each with its block and section. A hunk without anchors has the empty scope, which
// holds the whole file.
type scope struct {
	at   []anchorLine // ascending by line
	pass Pass         // the loosest pass any anchor of the chain needed
	text string       // the text of the chain's last anchor, as it was looked for
	// reach[i] is the furthest block end of at[:i+1]: blocks nest or are disjoint, so a
	// line lies in some block exactly when the reach of the anchor lines above it gets
	// to it.
	reach []int
}

// withReach fills in the scope's reach.
func (sc scope) withReach() scope {
	sc.reach = make([]int, len(sc.at))
	for i, a := range sc.at {
		sc.reach[i] = a.block
		if i > 0 {
			sc.reach[i] = max(a.block, sc.reach[i-1])
		}
	}
	return sc
}

// above returns the index of the last anchor line above line c, or -1.
func (sc scope) above(c int) int {
	return sort.Search(len(sc.at), func(i int) bool { return sc.at[i].line >= c }) - 1
}

// anchorLine is one line an anchor names: its block runs to block (inclusive), its
// section to section (exclusive), the next line the anchor also names.
type anchorLine struct {
	line, block, section int
}

// tier says how closely a candidate keeps to its scope, closest first.
type tier int

const (
	tierBlock   tier = iota // inside the block of a line the anchor names
	tierSection             // before the next line the anchor names
	tierBelow               // only below the first line the anchor names
)

// names reports whether line c is one of the lines the anchor names.
func (sc scope) names(c int) bool {
	i := sc.above(c) + 1 // the first anchor line at or below c
	return i < len(sc.at) && sc.at[i].line == c
}

// anchored reports whether the scope comes from an anchor.
func (sc scope) anchored() bool { return len(sc.at) > 0 }

// unique reports whether the scope names no line or exactly one.
func (sc scope) unique() bool { return len(sc.at) < 2 }

// first returns the first anchor line, or -1 without anchor.
func (sc scope) first() int {
	if len(sc.at) == 0 {
		return -1
	}
	return sc.at[0].line
}

// lines returns the anchor lines.
func (sc scope) lines() []int {
	out := make([]int, len(sc.at))
	for i, a := range sc.at {
		out[i] = a.line
	}
	return out
}

// narrow keeps the candidates below the scope's first line, then of those the ones
// inside some anchor line's block, failing that inside some section. It never empties a
// set that has a candidate below the anchor, and says which tier it kept.
func (sc scope) narrow(cands []int) ([]int, tier) {
	if !sc.anchored() {
		return cands, tierBelow
	}
	first := sc.first()
	var below []int
	for _, c := range cands {
		if c > first {
			below = append(below, c)
		}
	}
	if len(below) < 2 && sc.unique() {
		return below, sc.tierOf(below)
	}
	for _, t := range [...]tier{tierBlock, tierSection} {
		var in []int
		for _, c := range below {
			if sc.holds(c, t) {
				in = append(in, c)
			}
		}
		if len(in) > 0 {
			return in, t
		}
	}
	return below, tierBelow
}

// tierOf returns the closest tier of a lone candidate.
func (sc scope) tierOf(cands []int) tier {
	for _, t := range [...]tier{tierBlock, tierSection} {
		if len(cands) == 1 && sc.holds(cands[0], t) {
			return t
		}
	}
	return tierBelow
}

// holds reports whether line c lies in the block (or section) of some anchor line.
// Sections end at the next line the anchor names, so only the nearest anchor line above
// c can hold it in its section.
func (sc scope) holds(c int, t tier) bool {
	i := sc.above(c)
	switch {
	case i < 0:
		return false
	case t == tierBlock:
		return sc.reach[i] >= c
	}
	return c < sc.at[i].section
}

// ownerScan is the most anchor lines owners looks through above each candidate, and
// ownerCands the most candidates it asks about: enough to name them in a miss.
const ownerScan, ownerCands = 64, 16

// owners returns the anchor lines whose block (or section) holds one of the candidates,
// the innermost for each, of at most ownerCands candidates.
func (sc scope) owners(cands []int, t tier) []int {
	var out []int
	for _, c := range cands[:min(len(cands), ownerCands)] {
		for i, n := sc.above(c), 0; i >= 0 && n < ownerScan; i, n = i-1, n+1 {
			a := sc.at[i]
			if (t == tierBlock && c <= a.block) || (t != tierBlock && c < a.section) {
				if !slices.Contains(out, a.line) {
					out = append(out, a.line)
				}
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// anchors follows the hunk's chain of anchors: each is looked for below the one
// before it, inside its block where it has one, then its section.
func (pl *Placer) anchors(h Hunk) (scope, *Miss) {
	var sc scope
	var outer string
	for _, a := range h.Chain() {
		next, err := pl.anchorIn(a, sc)
		if err != nil {
			err.Anchor, err.Outer = a, outer
			if err.Reason == AnchorAmbiguous { // the anchor above names lines the chain cannot settle
				err.Anchor, err.Outer = outer, ""
			}
			return scope{}, err
		}
		sc, outer = next, a
	}
	return sc, nil
}

// anchorIn finds the lines anchor a names within the scope of the anchor above it: a
// whole line or a line's prefix, at the first pass of the ladder that names any.
// Those at or after the order cursor win, then those that are the anchor itself
// over those that only start with it. Several lines may remain: the hunk decides. An
// anchor that names no line is looked for once more without a closing "@@" (the V4A
// spelling "@@ TEXT @@").
func (pl *Placer) anchorIn(a string, parent scope) (scope, *Miss) {
	sc, err := pl.anchorAt(a, parent)
	if err != nil && err.Reason == AnchorNotFound {
		if text, ok := closed(a); ok { // the V4A spelling "@@ TEXT @@"
			if sc, err2 := pl.anchorAt(text, parent); err2 == nil || err2.Reason != AnchorNotFound {
				return sc, err2
			}
		}
	}
	return sc, err
}

// closed returns the text of an anchor spelt "@@ TEXT @@", as some V4A writers do: a
// blank, then "@@" closing a non-blank text, trailing blanks aside.
func closed(a string) (string, bool) {
	a = strings.TrimRight(a, " \t")
	text, ok := strings.CutSuffix(a, "@@")
	if !ok || !strings.HasSuffix(text, " ") && !strings.HasSuffix(text, "\t") {
		return "", false
	}
	text = strings.TrimRight(text, " \t")
	return text, strings.TrimSpace(text) != ""
}

// anchorAt finds the lines anchor text a names, as anchorIn does, without its reading of
// a closing "@@".
func (pl *Placer) anchorAt(a string, parent scope) (scope, *Miss) {
	for _, p := range passes {
		want := normalize[p](a)
		if want == "" { // an anchor of blanks names no line at this pass
			continue
		}
		named := pl.idx.forAnchors(p).withPrefix(want)
		cands, t := parent.narrow(named)
		cands = pl.insideParent(cands, parent)
		if len(cands) == 0 {
			continue
		}
		if !parent.unique() && t == tierBelow { // the anchor above names lines the chain cannot settle
			return scope{}, parent.ambiguous(p)
		}
		if !pl.anchorsBehind {
			cands = pl.afterCursor(cands)
		}
		if whole := pl.wholeLines(cands, want, p); len(whole) > 0 {
			cands = whole
		}
		sc := scope{pass: max(parent.pass, p), text: a}
		for _, c := range cands {
			section := pl.t.Count()
			if i := sort.SearchInts(named, c+1); i < len(named) {
				section = named[i]
			}
			block := pl.blocks.blockEnd(c)
			if len(cands) > 1 && !pl.blocks.opens(c) {
				block = c // of several lines, only one that opens a body can hold the hunk alone
			}
			sc.at = append(sc.at, anchorLine{line: c, block: block, section: section})
		}
		return sc.withReach(), nil
	}
	err := &Miss{Reason: AnchorNotFound}
	if parent.anchored() {
		err.Lines = show.OneBased(parent.lines())
	}
	return scope{}, err
}

// insideParent drops the lines an anchor names that lie past the body of the one line
// the anchor above it names, in the body of a later line that anchor's text names too:
// "@@ class A" then "@@ def close" does not look for close in a later class A.
func (pl *Placer) insideParent(cands []int, parent scope) []int {
	if !parent.anchored() || !parent.unique() || !pl.blocks.opens(parent.first()) {
		return cands
	}
	end := parent.at[0].block
	return slices.DeleteFunc(cands, func(c int) bool { return pl.inCopy(c, end, parent) })
}

// wholeLines keeps the candidates whose whole line, normalised for pass p, is want.
func (pl *Placer) wholeLines(cands []int, want string, p Pass) []int {
	var out []int
	for _, c := range cands {
		if normalize[p](pl.t.Line(c)) == want {
			out = append(out, c)
		}
	}
	return out
}

// choose settles the starts of one pass of the ladder against the scope and the
// tie-breaks, in order: below the anchor, inside one of its blocks or sections, at
// or after the cursor, nearest the line hint. No step empties the set or
// overrides a unique start. It returns the one start, or the miss that refuses them.
func (pl *Placer) choose(sc scope, ms *matchSet, h Hunk, p Pass) (int, *Miss) {
	lo, hi := sc.first()+1, pl.t.Count()
	v := sc.view(ms, lo, hi)
	if !sc.unique() && v.t == tierBelow { // no line the anchor names holds the hunk
		err := sc.ambiguous(p)
		err.HunkLines, err.HunkMore, err.HunkCapped = v.listed(lo, hi)
		return -1, err
	}
	if v.several(lo, hi) && v.first(max(lo, pl.cursor), hi) >= 0 {
		lo = max(lo, pl.cursor)
	}
	if !v.several(lo, hi) {
		return v.first(lo, hi), nil
	}
	cands, more, capped := []int(nil), 0, false
	if h.LineHint() > 0 {
		if cands = v.nearest(lo, hi, h.LineHint()-1); len(cands) == 1 {
			return cands[0], nil
		}
	} else {
		var total int
		cands, total, capped = v.list(lo, hi, ownerCands)
		more = total - len(cands)
	}
	if owners := sc.owners(cands, v.t); len(owners) > 1 { // several anchor lines hold the hunk
		listed := owners[:min(len(owners), Listed)]
		err := &Miss{Reason: AnchorAmbiguous}
		err.Lines, err.More, err.Pass = show.OneBased(listed), len(sc.at)-len(listed), p
		err.HunkLines, err.HunkMore, err.HunkCapped = firstFew(cands, more, capped)
		return -1, err
	}
	err := &Miss{Reason: Ambiguous, Pass: p}
	err.Lines, err.More, err.MoreCapped = firstFew(cands, more, capped)
	return -1, err
}

// listed returns the first few starts of the view in [lo, hi), 1-based, and how many more
// there are.
func (v scoped) listed(lo, hi int) ([]int, int, bool) {
	cands, total, capped := v.list(lo, hi, Listed)
	return show.OneBased(cands), total - len(cands), capped
}

// firstFew cuts 0-based candidates to the few a miss lists, 1-based, adding the rest to
// more.
func firstFew(cands []int, more int, capped bool) ([]int, int, bool) {
	n := min(len(cands), Listed)
	return show.OneBased(cands[:n]), more + len(cands) - n, capped
}

// ambiguous is the miss of a scope whose several anchor lines nothing settles: it lists
// the first few.
func (sc scope) ambiguous(p Pass) *Miss {
	lines := sc.lines()
	n := min(len(lines), Listed)
	err := &Miss{Reason: AnchorAmbiguous}
	err.Lines, err.More, err.Pass = show.OneBased(lines[:n]), len(lines)-n, p
	return err
}

// behindCursor retries a hunk whose lines lie only above the lines its anchor names at or
// after the order cursor: the cursor narrows an anchor's lines only as long as the
// hunk keeps a place below them, so a line above the cursor whose block holds the hunk
// (a class opened before the previous hunk) is not lost.
func (pl *Placer) behindCursor(h Hunk, old []string, got Place, err *Miss, sc scope) (Place, *Miss, scope) {
	pl.anchorsBehind = true
	wide, werr := pl.anchors(h)
	pl.anchorsBehind = false
	if werr != nil || len(wide.at) == len(sc.at) {
		return got, err, sc
	}
	if got2, err2 := pl.locate(h, old, wide); err2 == nil || err2.Reason != AboveAnchor {
		return got2, err2, wide
	}
	return got, err, sc
}
