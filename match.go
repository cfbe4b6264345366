package applypatch

import (
	"sort"
	"strings"
	"unicode"
)

// Pass is the rung of the matching ladder that placed a hunk (M1, M8). Each rung
// compares lines after a looser normalisation than the one before.
type Pass int

const (
	// Exact compares lines as they are (line terminators aside).
	Exact Pass = iota
	// TrailingWhitespace ignores whitespace at the end of lines.
	TrailingWhitespace
	// SurroundingWhitespace ignores whitespace at both ends of lines.
	SurroundingWhitespace
	// Punctuation also folds typographic punctuation to ASCII (see [TypographicFold]).
	Punctuation
)

// passes is the ladder, strictest first.
var passes = [...]Pass{Exact, TrailingWhitespace, SurroundingWhitespace, Punctuation}

// String returns how the pass matched, in the words of the model-visible result:
// "exact", "ignoring trailing whitespace", "ignoring surrounding whitespace" or
// "normalizing typographic punctuation".
func (p Pass) String() string {
	switch p {
	case TrailingWhitespace:
		return "ignoring trailing whitespace"
	case SurroundingWhitespace:
		return "ignoring surrounding whitespace"
	case Punctuation:
		return "normalizing typographic punctuation"
	}
	return "exact"
}

// Fuzzy reports whether the pass is looser than [Exact].
func (p Pass) Fuzzy() bool { return p > Exact }

// TypographicFold is the fold table of the [Punctuation] pass: each character on the left
// is compared as the ASCII text on the right. It is the union of the tables of Codex,
// OpenCode and mevedel: dashes and the minus sign, curly, low and prime quotes and
// guillemets, the ellipsis, and exotic spaces. It is read-only.
var TypographicFold = map[rune]string{
	'\u2010': "-", '\u2011': "-", '\u2012': "-", '\u2013': "-", '\u2014': "-", '\u2015': "-",
	'\u2212': "-",
	'\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
	'\u201C': `"`, '\u201D': `"`, '\u201E': `"`, '\u201F': `"`, '\u2033': `"`,
	'\u00AB': `"`, '\u00BB': `"`,
	'\u2026': "...",
	'\u00A0': " ", '\u2000': " ", '\u2001': " ", '\u2002': " ", '\u2003': " ", '\u2004': " ",
	'\u2005': " ", '\u2006': " ", '\u2007': " ", '\u2008': " ", '\u2009': " ", '\u200A': " ",
	'\u202F': " ", '\u205F': " ", '\u3000': " ",
}

// normalize is the comparison key of a line at each pass.
var normalize = [...]func(string) string{
	Exact:                 func(s string) string { return s },
	TrailingWhitespace:    func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
	SurroundingWhitespace: strings.TrimSpace,
	Punctuation:           func(s string) string { return strings.TrimSpace(fold(s)) },
}

// fold applies [TypographicFold], allocating only when the line has something to fold.
func fold(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { _, ok := TypographicFold[r]; return ok })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if f, ok := TypographicFold[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lineIndex finds where lines occur in a file at each pass, so that placing a hunk costs
// about its own length plus its candidates, never a rescan of the file (M10, PERF1).
// Levels are built lazily: most payloads never need the fuzzy ones.
type lineIndex struct {
	t      *text
	levels [len(passes)]*level
}

// level is the index of one pass: every line gets the id of its normalised text, and the
// positions of each id are kept together in file order.
type level struct {
	norm  []string         // normalised lines (shares t.lines at the exact pass)
	ids   map[string]int32 // normalised text → id
	id    []int32          // per line: its id
	start []int32          // per id: offset of its positions in pos (len = ids+1)
	pos   []int32          // positions grouped by id, ascending within an id
	// sorted holds line positions ordered by normalised text, for anchor prefix lookups;
	// built on the first anchor.
	sorted []int32
}

func newLineIndex(t *text) *lineIndex { return &lineIndex{t: t} }

// at returns the index of pass p, building it on first use.
func (x *lineIndex) at(p Pass) *level {
	if x.levels[p] == nil {
		x.levels[p] = buildLevel(x.t.lines, normalize[p], p == Exact)
	}
	return x.levels[p]
}

func buildLevel(lines []string, norm func(string) string, same bool) *level {
	lv := &level{norm: lines, ids: make(map[string]int32, len(lines)/2+1), id: make([]int32, len(lines))}
	if !same {
		lv.norm = make([]string, len(lines))
		for i, l := range lines {
			lv.norm[i] = norm(l)
		}
	}
	var counts []int32
	for i, l := range lv.norm {
		id, ok := lv.ids[l]
		if !ok {
			id = int32(len(counts))
			lv.ids[l] = id
			counts = append(counts, 0)
		}
		counts[id]++
		lv.id[i] = id
	}
	lv.start = make([]int32, len(counts)+1)
	for id, c := range counts {
		lv.start[id+1] = lv.start[id] + c
	}
	fill := append([]int32(nil), lv.start[:len(counts)]...)
	lv.pos = make([]int32, len(lines))
	for i, id := range lv.id {
		lv.pos[fill[id]] = int32(i)
		fill[id]++
	}
	return lv
}

// positions returns where normalised text s occurs, in file order.
func (lv *level) positions(s string) []int32 {
	id, ok := lv.ids[s]
	if !ok {
		return nil
	}
	return lv.pos[lv.start[id]:lv.start[id+1]]
}

// find returns every start at which the normalised lines want occur, restricted to the
// one start eofStart when it is not negative. It looks up the rarest of the lines and
// verifies each of its positions by id.
func (lv *level) find(want []string, eofStart int) []int {
	ids := make([]int32, len(want))
	rare := 0
	for k, w := range want {
		id, ok := lv.ids[w]
		if !ok {
			return nil
		}
		ids[k] = id
		if lv.count(id) < lv.count(ids[rare]) {
			rare = k
		}
	}
	if eofStart >= 0 {
		if lv.matchesAt(ids, eofStart) {
			return []int{eofStart}
		}
		return nil
	}
	var out []int
	for _, p := range lv.pos[lv.start[ids[rare]]:lv.start[ids[rare]+1]] {
		if s := int(p) - rare; lv.matchesAt(ids, s) {
			out = append(out, s)
		}
	}
	return out
}

func (lv *level) count(id int32) int32 { return lv.start[id+1] - lv.start[id] }

func (lv *level) matchesAt(ids []int32, s int) bool {
	if s < 0 || s+len(ids) > len(lv.id) {
		return false
	}
	for k, id := range ids {
		if lv.id[s+k] != id {
			return false
		}
	}
	return true
}

// withPrefix returns the positions (ascending) of lines whose normalised text starts
// with prefix.
func (lv *level) withPrefix(prefix string) []int {
	if lv.sorted == nil {
		lv.sorted = make([]int32, len(lv.norm))
		for i := range lv.sorted {
			lv.sorted[i] = int32(i)
		}
		sort.SliceStable(lv.sorted, func(a, b int) bool { return lv.norm[lv.sorted[a]] < lv.norm[lv.sorted[b]] })
	}
	i := sort.Search(len(lv.sorted), func(i int) bool { return lv.norm[lv.sorted[i]] >= prefix })
	var out []int
	for ; i < len(lv.sorted) && strings.HasPrefix(lv.norm[lv.sorted[i]], prefix); i++ {
		out = append(out, int(lv.sorted[i]))
	}
	sort.Ints(out)
	return out
}

// normalized returns the lines normalised for pass p.
func normalized(lines []string, p Pass) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = normalize[p](l)
	}
	return out
}
