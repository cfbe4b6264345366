package match

import "sort"

// A matchSet is every start at which a file holds a hunk's lines at one pass, kept lazily:
// the sorted positions of the hunk's rarest line, each verified only when a question
// reaches it. The tie-breaks (below the anchor, inside its section, at or after the
// cursor, nearest the line hint) only narrow a range of starts, so each is answered by a
// binary search and a walk to the first verified start, never by listing every
// candidate: a hint among 200,000 identical lines costs a few comparisons.
type matchSet struct {
	lv    *level   // verifies starts: its lines at its pass
	want  []string // the hunk's lines, normalised for lv's pass
	rare  []int32  // positions of want[off] (normalised at the index's pass), ascending
	off   int
	only  int  // when not negative, the one start allowed (an End of File hunk)
	count *int // starts verified, for tests that bound the work
	// known is the last start verified plus one (0 for none), and held its answer: the
	// tie-breaks ask about the one start a placed hunk has several times over.
	known int
	held  bool
}

// matches sets ms to the set of starts at which the file holds old at pass p. The caller
// holds the set, so that placing a hunk allocates none.
func (x *lineIndex) matches(ms *matchSet, old []string, p Pass, eofStart int) {
	if p == Exact && x.keyed(ms, old, eofStart) {
		return
	}
	*ms = matchSet{lv: x.at(p), want: normalized(old, p), only: eofStart, count: &x.verified}
	x.rarest(ms, old, p, nil)
}

// rarest sets ms.rare and ms.off to the positions of the rarest of lines (of those at
// the indexes keyed, or of all for nil), looked up in the index the pass p narrows; a
// line that occurs nowhere leaves no start at all (off -1), and so does a nil keyed that
// is empty.
func (x *lineIndex) rarest(ms *matchSet, lines []string, p Pass, keyed []int) {
	index := x.at(Exact)
	if p != Exact {
		index = x.at(Punctuation)
	}
	keys := normalized(lines, index.pass)
	ms.rare, ms.off = nil, -1
	n := len(keys)
	if keyed != nil {
		n = len(keyed)
	}
	for i := range n {
		k := i
		if keyed != nil {
			k = keyed[i]
		}
		ps := index.positions(keys[k])
		if len(ps) == 0 { // a line that occurs nowhere: no start at all
			ms.rare, ms.off = nil, -1
			return
		}
		if ms.off < 0 || len(ps) < len(ms.rare) {
			ms.rare, ms.off = ps, k
		}
	}
}

// newSide is the set of starts at which the file holds a hunk's new side, lines at pass
// p: its context lines (at the indexes context) are indexed, so the rarest of them gives
// the starts; a hunk with no context line is tried from the top, at no more starts than
// keep the lines compared within lineBudget, so a hostile text costs a bounded time.
func (x *lineIndex) newSide(lines []string, context []int, p Pass) *matchSet {
	ms := &matchSet{lv: x.at(p), want: normalized(lines, p), only: -1, count: &x.verified}
	if len(context) > 0 {
		x.rarest(ms, lines, p, context)
		return ms
	}
	ms.rare, ms.off = nil, -1
	if len(lines) > 0 {
		ms.off = 0
		for i := range min(x.t.Count(), max(1, lineBudget/len(lines))) {
			ms.rare = append(ms.rare, int32(i))
		}
	}
	return ms
}

// lineBudget bounds the lines compared to try a hunk with no context line at each start.
const lineBudget = 1 << 20

// ok reports whether the file holds the set's lines from start s, verifying each start
// once of the times it is asked in a row.
func (ms *matchSet) ok(s int) bool {
	switch {
	case ms.only >= 0 && s != ms.only:
		return false
	case ms.known == s+1:
		return ms.held
	}
	*ms.count++
	ms.known, ms.held = s+1, ms.lv.matchesAt(ms.want, s)
	return ms.held
}

// from returns the index in rare of the first position whose start is at least lo.
func (ms *matchSet) from(lo int) int {
	return sort.Search(len(ms.rare), func(i int) bool { return int(ms.rare[i])-ms.off >= lo })
}

// first returns the lowest start in [lo, hi), or -1.
func (ms *matchSet) first(lo, hi int) int {
	if ms.off < 0 {
		return -1
	}
	if ms.only >= 0 {
		if ms.only >= lo && ms.only < hi && ms.ok(ms.only) {
			return ms.only
		}
		return -1
	}
	for i := ms.from(lo); i < len(ms.rare); i++ {
		s := int(ms.rare[i]) - ms.off
		if s >= hi {
			break
		}
		if ms.ok(s) {
			return s
		}
	}
	return -1
}

// last returns the highest start in [lo, hi), or -1.
func (ms *matchSet) last(lo, hi int) int {
	if ms.off < 0 {
		return -1
	}
	if ms.only >= 0 {
		return ms.first(lo, hi)
	}
	for i := ms.from(hi) - 1; i >= 0; i-- {
		s := int(ms.rare[i]) - ms.off
		if s < lo {
			break
		}
		if ms.ok(s) {
			return s
		}
	}
	return -1
}

// countBudget is how many starts a miss counts before it stops ("more than"): a
// failing hunk's cost stays bounded however often a hostile file repeats its lines.
const countBudget = 10000

// list returns the first limit starts in [lo, hi), ascending, and how many there are in
// all, counting at most countBudget; capped reports that the count stopped there.
func (ms *matchSet) list(lo, hi, limit int) (out []int, total int, capped bool) {
	if ms.off < 0 {
		return nil, 0, false
	}
	if ms.only >= 0 {
		if s := ms.first(lo, hi); s >= 0 {
			return []int{s}, 1, false
		}
		return nil, 0, false
	}
	for i := ms.from(lo); i < len(ms.rare); i++ {
		s := int(ms.rare[i]) - ms.off
		if s >= hi {
			break
		}
		if !ms.ok(s) {
			continue
		}
		if total++; total <= limit {
			out = append(out, s)
		} else if total >= countBudget {
			return out, total, true
		}
	}
	return out, total, false
}

// nearest returns the start in [lo, hi) nearest target, or the two equidistant ones.
func (ms *matchSet) nearest(lo, hi, target int) []int {
	return nearestOf(ms.last(lo, min(hi, target+1)), ms.first(max(lo, target+1), hi), target)
}

// nearestOf returns whichever of below (the last start at or before target) and above
// (the first after it) is nearer target, or both when they are equidistant; a missing
// one is -1.
func nearestOf(below, above, target int) []int {
	switch {
	case below < 0:
		return []int{above}
	case above < 0:
		return []int{below}
	case target-below < above-target:
		return []int{below}
	case above-target < target-below:
		return []int{above}
	}
	return []int{below, above}
}
