package match

import (
	"sort"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/turns"
)

// lineIndex finds where a file holds the lines its hunks name, so that placing a hunk
// costs about its own length plus its candidates, never a rescan of the file per hunk per
// pass. An index is one pass over the file that looks each line up in a
// small table of the hunks' lines. A text split for Resolve first gets the key index,
// built in the split's own pass, of one line per hunk (see keyLine); the others are
// built on first use: the whole exact pass's, which normalises nothing, when a key line
// is not rare, and the loosest pass's. The ladder is monotone —
// lines equal at a stricter pass are equal at every looser one — so the loosest pass's
// candidates hold those of the fuzzy passes between, which are told apart by comparing
// the hunk's few lines. Anchors get a prefix list per pass, built on demand.
type lineIndex struct {
	t       *lines.Text
	hunks   []Hunk   // whose context and removed lines are wanted
	anchors []string // the hunks' "@@" anchors, raw
	levels  [len(passes)]*level
	// keys, when set, is an exact index of each hunk's key line only (see keyLine),
	// built while the text was split: a few thousand lines to look up, not every line
	// of every hunk. The whole exact index is built only when a key line is not rare.
	keys  *level
	loose looseMemo
	// verified counts the starts a matchSet verified, for tests that bound the work.
	verified int
}

// level is the index of one pass.
type level struct {
	pass Pass
	t    *lines.Text
	// wanted numbers the wanted lines, normalised; occ[k] holds the positions of the file
	// lines equal to wanted line k after normalisation, in file order.
	wanted *lines.Set
	occ    [][]int32
	// prefixed holds the file lines that may start with an anchor, ordered by normalised
	// text (ties by position) for prefix lookups; built on the first anchor lookup.
	prefixed []prefixed
	built    bool
	anchors  []string
}

// prefixed is a file line that may start with an anchor.
type prefixed struct {
	norm string
	pos  int32
}

// newLineIndex indexes a file for the given hunks.
func newLineIndex(t *lines.Text, hunks []Hunk) *lineIndex {
	x := &lineIndex{t: t, hunks: hunks}
	for i := range hunks {
		for _, a := range hunks[i].Chain() {
			x.anchors = append(x.anchors, a)
			if text, ok := closed(a); ok { // looked for too when the anchor names no line
				x.anchors = append(x.anchors, text)
			}
		}
	}
	return x
}

// at returns the index of pass p, building it on first use.
func (x *lineIndex) at(p Pass) *level {
	if x.levels[p] == nil {
		x.levels[p] = buildLevel(x, p)
	}
	return x.levels[p]
}

func buildLevel(x *lineIndex, p Pass) *level {
	lv := newLevel(x, p)
	n := x.t.Count()
	switch {
	case lv.wanted == nil:
	case n < sharedLines || !turns.SecondProcessor():
		for i := range n {
			lv.see(i, x.t.Line(i))
		}
	default:
		lv.seeShared(n)
	}
	return lv
}

// sharedLines is the fewest lines a pass's index is built for on two goroutines, where a
// second processor runs: a pass that normalises each line (the loosest, whose fold looks
// for typographic punctuation) spends about 60 ns a line, so 16,384 lines are a
// millisecond of work.
const sharedLines = 1 << 14

// seeShared sees the text's n lines on two goroutines, which take turns.Pieces pieces of
// them in turn (see turns.Take); the wanted lines are only read, and each piece's hits
// are kept apart and appended in piece order (lines.AppendHits), so every wanted line's
// positions stay in file order.
func (lv *level) seeShared(n int) {
	hits := make([][]lines.Hit, turns.Pieces)
	turns.Take(turns.Pieces, func(k int) {
		for i := n * k / turns.Pieces; i < n*(k+1)/turns.Pieces; i++ {
			if id := lv.lookup(lv.t.Line(i)); id >= 0 {
				hits[k] = append(hits[k], lines.Hit{Key: int32(id), Line: int32(i)})
			}
		}
	})
	lines.AppendHits(lv.occ, hits)
}

// newLevel makes the index of pass p before any file line is seen: the exact and the
// loosest pass's map the hunks' lines, the others look up only anchors.
func newLevel(x *lineIndex, p Pass) *level {
	lv := &level{pass: p, t: x.t, anchors: x.anchors}
	if p != Exact && p != Punctuation {
		return lv // only anchors are looked up here; hunks narrow the loosest candidates
	}
	n := 0
	for i := range x.hunks {
		n += x.hunks[i].Len()
	}
	lv.wanted = lines.NewSet(n)
	for _, h := range x.hunks {
		for j := range h.Len() {
			if kind, text := h.LineAt(j); kind != Add {
				lv.wanted.Add(normalize[p](text))
			}
		}
	}
	lv.occ = make([][]int32, lv.wanted.Len())
	return lv
}

// see records file line i, its text without terminator, when it is one of the wanted
// lines after normalisation.
func (lv *level) see(i int, line string) {
	if k := lv.lookup(line); k >= 0 {
		lv.occ[k] = append(lv.occ[k], int32(i))
	}
}

// lookup returns the number of the wanted line a file line is equal to after
// normalisation, or -1. It only reads the level.
func (lv *level) lookup(line string) int {
	if lv.pass != Exact {
		line = normalize[lv.pass](line)
	}
	return lv.wanted.Find(line)
}

// indexText splits s into lines and indexes them for the hunks' exact pass in the same
// pass over s: each line is looked up, among the hunks' key lines, as it is found.
func indexText(s string, hunks []Hunk) (*lines.Text, *lineIndex) {
	x := newLineIndex(nil, hunks)
	lv := &level{pass: Exact, anchors: x.anchors, wanted: lines.NewSet(len(hunks))}
	for i := range hunks {
		if key, ok := hunkKey(hunks[i]); ok {
			lv.wanted.Add(key)
		}
	}
	lv.occ = make([][]int32, lv.wanted.Len())
	x.t = lines.SplitIndexed(s, lv.wanted, lv.occ)
	lv.t = x.t
	x.keys = lv
	return x.t, x
}

// keyLine returns the index in old of the line a hunk is first looked up by: its
// longest (the first of those), which is the likeliest to be rare; -1 when old is empty.
// Any line serves: every start of the hunk holds each of its lines at its own offset.
func keyLine(old []string) int {
	k := -1
	for i, l := range old {
		if k < 0 || len(l) > len(old[k]) {
			k = i
		}
	}
	return k
}

// hunkKey is keyLine of a hunk's old lines.
func hunkKey(h Hunk) (string, bool) {
	key, ok := "", false
	for i := range h.Len() {
		if kind, text := h.LineAt(i); kind != Add && (!ok || len(text) > len(key)) {
			key, ok = text, true
		}
	}
	return key, ok
}

// rareKey is the most starts a key line may have for its positions to be a hunk's
// candidates: past it, the whole exact index is built to find the hunk's rarest line.
const rareKey = 16

// keyed sets ms to the exact pass's match set of old from the key index, when its key
// line is one the index holds and is rare, and reports whether it did.
func (x *lineIndex) keyed(ms *matchSet, old []string, eofStart int) bool {
	if x.keys == nil || x.levels[Exact] != nil {
		return false
	}
	k := keyLine(old)
	if k < 0 {
		return false
	}
	id := x.keys.wanted.Find(old[k])
	if id < 0 || len(x.keys.occ[id]) > rareKey {
		return false
	}
	*ms = matchSet{lv: x.keys, want: old, rare: x.keys.occ[id], off: k, only: eofStart, count: &x.verified}
	if len(ms.rare) == 0 {
		ms.off = -1 // the key line occurs nowhere: no start at all
	}
	return true
}

// forAnchors returns the index of pass p to look anchors up in. Anchors need only the
// text, so the exact pass's key index serves and the whole exact index is not built.
func (x *lineIndex) forAnchors(p Pass) *level {
	if p == Exact && x.levels[p] == nil && x.keys != nil {
		return x.keys
	}
	return x.at(p)
}

// candidates returns every start at which the file holds old at the loosest pass: a
// superset of the matches of every pass (restricted to eofStart when not negative). The
// ladder asks for one hunk's lines at each fuzzy pass in turn, so the last answer is kept.
func (x *lineIndex) candidates(old []string, eofStart int) []int {
	if m := &x.loose; m.eof == eofStart && len(m.old) == len(old) && len(old) > 0 && &m.old[0] == &old[0] {
		return m.cands
	}
	cands := x.at(Punctuation).find(normalized(old, Punctuation), eofStart)
	x.loose = looseMemo{old: old, eof: eofStart, cands: cands}
	return cands
}

// looseMemo is the last answer of candidates, for the lines it was asked about.
type looseMemo struct {
	old   []string
	eof   int
	cands []int
}

// find returns every start at which the file holds old at pass p. The exact pass has an
// index of its own: most hunks match exactly, and then no line is normalised at all.
func (x *lineIndex) find(old []string, p Pass, eofStart int) []int {
	if p == Exact {
		return x.at(Exact).find(old, eofStart)
	}
	return x.at(p).narrow(x.candidates(old, eofStart), normalized(old, p))
}

// narrow keeps the starts of loose (candidates of the loosest pass) at which the file
// holds want, the hunk's lines normalised for this level's pass.
func (lv *level) narrow(loose []int, want []string) []int {
	if lv.pass == Punctuation {
		return loose
	}
	var out []int
	for _, s := range loose {
		if lv.matchesAt(want, s) {
			out = append(out, s)
		}
	}
	return out
}

// positions returns where normalised text s occurs, in file order; nil when s is not one
// of the wanted lines, normalised.
func (lv *level) positions(s string) []int32 {
	if k := lv.wanted.Find(s); k >= 0 {
		return lv.occ[k]
	}
	return nil
}

// find returns every start at which the normalised lines want occur, restricted to the
// one start eofStart when it is not negative. It takes the positions of the rarest of the
// lines and verifies each candidate line by line.
func (lv *level) find(want []string, eofStart int) []int {
	rare, rarest := 0, []int32(nil)
	for k, w := range want {
		ps := lv.positions(w)
		if len(ps) == 0 {
			return nil
		}
		if k == 0 || len(ps) < len(rarest) {
			rare, rarest = k, ps
		}
	}
	if eofStart >= 0 {
		if lv.matchesAt(want, eofStart) {
			return []int{eofStart}
		}
		return nil
	}
	var out []int
	for _, p := range rarest {
		if s := int(p) - rare; lv.matchesAt(want, s) {
			out = append(out, s)
		}
	}
	return out
}

// matchesAt reports whether the file holds want, normalised, from line s.
func (lv *level) matchesAt(want []string, s int) bool {
	if s < 0 || s+len(want) > lv.t.Count() {
		return false
	}
	norm := normalize[lv.pass]
	for k, w := range want {
		if norm(lv.t.Line(s+k)) != w {
			return false
		}
	}
	return true
}

// anchorKey is the most bytes of an anchor used to pick the lines that may start with it.
const anchorKey = 8

// withPrefix returns the positions (ascending) of lines whose normalised text starts
// with prefix, one of the anchors normalised at this pass.
func (lv *level) withPrefix(prefix string) []int {
	if !lv.built {
		lv.buildPrefixed()
	}
	i := sort.Search(len(lv.prefixed), func(i int) bool { return lv.prefixed[i].norm >= prefix })
	var out []int
	for ; i < len(lv.prefixed) && strings.HasPrefix(lv.prefixed[i].norm, prefix); i++ {
		out = append(out, int(lv.prefixed[i].pos))
	}
	sort.Ints(out)
	return out
}

// buildPrefixed keeps the lines whose first bytes are the first bytes of some anchor, and
// sorts them by text.
func (lv *level) buildPrefixed() {
	lv.built = true
	norm := normalize[lv.pass]
	key := anchorKey
	var anchors []string
	for _, a := range lv.anchors {
		if n := norm(a); n != "" {
			anchors = append(anchors, n)
			key = min(key, len(n))
		}
	}
	if len(anchors) == 0 {
		return
	}
	keys := make(map[string]bool, len(anchors))
	for _, a := range anchors {
		keys[a[:key]] = true
	}
	for i := range lv.t.Count() {
		if n := norm(lv.t.Line(i)); len(n) >= key && keys[n[:key]] {
			lv.prefixed = append(lv.prefixed, prefixed{norm: n, pos: int32(i)})
		}
	}
	sort.SliceStable(lv.prefixed, func(a, b int) bool { return lv.prefixed[a].norm < lv.prefixed[b].norm })
}
