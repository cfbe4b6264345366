package applypatch

import (
	"strings"

	"github.com/applypatch/applypatch/internal/diff"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// A sinceMap is how the lines of a file as an undo or a redo expects it (what the change
// left, or what it found) lie in the file now, by a diff of the two: at[i] is where line
// i of the expected file is now, -1 for a line edited or removed since.
type sinceMap struct {
	at []int
	n  int // the lines of the file now
	// index lists, by text, the lines of the file now that hold it.
	index map[string][]int
	// expected is the file expected, and once how many times each of its lines occurs.
	expected []string
	once     map[string]int
	// ends are the line terminators of the file expected; back is, once asked for, at
	// the other way round: for each line of the file now, its line expected, or -1.
	ends []lines.EOL
	back []int
}

// sinceMapOf diffs the lines expected against the lines now.
func sinceMapOf(expected, now []string) *sinceMap {
	m := &sinceMap{at: make([]int, len(expected)), n: len(now), expected: expected}
	for i := range m.at {
		m.at[i] = -1
	}
	for _, op := range diff.Lines(expected, now) {
		if op.Kind == diff.KindContext {
			m.at[op.A] = op.B
		}
	}
	return m
}

// anchorLook is how far above a hunk anchor looks for a line to anchor it by.
const anchorLook = 200

// anchor gives each hunk, whose old lines start at starts[i] of the file expected, the
// nearest line above it that occurs exactly once in the file expected and once in the
// file now (a function's header, say) as its "@@" anchor, unless it has one: the search
// then looks for the hunk below that line and inside its block, so a function moved
// since, or a copy of the change's lines elsewhere, is not taken for the change.
func (m *sinceMap) anchor(hunks []Hunk, starts []int) {
	if m == nil {
		return
	}
	if m.once == nil {
		m.once = map[string]int{}
		for _, l := range m.expected {
			m.once[l]++
		}
	}
	for i := range hunks {
		if hunks[i].Anchor != "" || i >= len(starts) {
			continue
		}
		for k := starts[i] - 1; k >= 0 && k >= starts[i]-anchorLook && k < len(m.expected); k-- {
			l := m.expected[k]
			if strings.TrimSpace(l) != "" && m.once[l] == 1 && len(m.positions(l)) == 1 && anchorProblem(l) == "" {
				hunks[i].Anchor = l
				break
			}
		}
	}
}

// positions lists the lines of the file now that hold l.
func (m *sinceMap) positions(l string) []int { return m.index[l] }

// expect is where hunk h of an undo or a redo, whose old lines start at line start of
// the file expected, goes in the file now, by the edits since (the diff): the hunk cut to
// the context lines the edits left next to its changed lines, and that hunk's start in
// the file now. The changed lines (the lines it removes, and context lines between them)
// must all be there, unedited and together; lines it only inserts need both neighbours
// there and still next to each other, or one of them, where the other was replaced by as
// many lines. ok is false when the edits since leave the place uncertain.
func (m *sinceMap) expect(h *Hunk, start int) (Hunk, int, bool) {
	lead, trail := contextRun(h.Lines, 1), contextRun(h.Lines, -1)
	if lead == len(h.Lines) {
		return Hunk{}, 0, false
	}
	middle := h.Lines[lead : len(h.Lines)-trail]
	first, old := start+lead, oldCount(middle) // the middle's old lines, in the file expected
	var at int
	if old > 0 {
		if first+old > len(m.at) || m.at[first] < 0 {
			return Hunk{}, 0, false
		}
		for k := range old {
			if m.at[first+k] != m.at[first]+k {
				return Hunk{}, 0, false
			}
		}
		if m.slides(first, first+old) {
			return Hunk{}, 0, false
		}
		at = m.at[first]
	} else if at = m.insertion(first); at < 0 {
		return Hunk{}, 0, false
	}
	l := 0 // the lead context lines still right above
	for l < lead && first-1-l >= 0 && m.at[first-1-l] >= 0 && m.at[first-1-l] == at-1-l {
		l++
	}
	t := 0 // the trail context lines still right below
	for t < trail && first+old+t < len(m.at) && m.at[first+old+t] == at+old+t {
		t++
	}
	// Lines the middle only inserts at its edge go between its lines and a neighbour,
	// which must be there still, right next to them: the file's end or start where the
	// hunk had no context on that side.
	if old > 0 && insertsAtEdge(middle, -1) && (trail > 0 && t == 0 || trail == 0 && at+old != m.n) {
		return Hunk{}, 0, false
	}
	if old > 0 && insertsAtEdge(middle, 1) && (lead > 0 && l == 0 || lead == 0 && at != 0) {
		return Hunk{}, 0, false
	}
	cut := Hunk{Line: h.Line, Anchor: h.Anchor, Lines: h.Lines[lead-l : len(h.Lines)-trail+t]}
	return cut, at - l, true
}

// slides reports whether lines removed since right next to the expected lines from..to
// could as well have been some of those lines: a removed run just after them whose last
// line is their last (two identical lines, one removed), or just before them whose first
// line is their first. The diff chose one reading; which one is the change's is not
// certain.
func (m *sinceMap) slides(from, to int) bool {
	if q := to; q < len(m.at) && m.at[q] < 0 {
		for q+1 < len(m.at) && m.at[q+1] < 0 {
			q++
		}
		if m.expected[q] == m.expected[to-1] {
			return true
		}
	}
	if p := from - 1; p >= 0 && m.at[p] < 0 {
		for p-1 >= 0 && m.at[p-1] < 0 {
			p--
		}
		if m.expected[p] == m.expected[from] {
			return true
		}
	}
	return false
}

// insertion is where lines inserted before line k of the file expected go in the file
// now, or -1 when that is not certain.
func (m *sinceMap) insertion(k int) int {
	left, right := -1, m.n // where the neighbours are now; -1 and n stand for the ends
	if k > 0 {
		left = m.at[k-1]
	}
	if k < len(m.at) {
		right = m.at[k]
	}
	switch {
	case (k == 0 || left >= 0) && (k == len(m.at) || right >= 0):
		if right == left+1 {
			return right
		}
	case k > 0 && left >= 0 && m.replaced(k, true):
		return left + 1
	case k < len(m.at) && right >= 0 && m.replaced(k, false):
		return right
	}
	return -1
}

// replaced reports whether the expected lines after line k-1 (after is set), or before
// line k, up to the next line still there, were replaced by as many lines: the insertion
// point is then next to the line still there, as it was.
func (m *sinceMap) replaced(k int, after bool) bool {
	i := k
	step := 1
	if !after {
		i, step = k-1, -1
	}
	n := 0
	for i >= 0 && i < len(m.at) && m.at[i] < 0 {
		i += step
		n++
	}
	var from, to int // the lines now between the neighbours still there
	switch {
	case after && i < len(m.at):
		from, to = m.at[k-1]+1, m.at[i]
	case after:
		from, to = m.at[k-1]+1, m.n
	case i >= 0:
		from, to = m.at[i]+1, m.at[k]
	default:
		from, to = 0, m.at[k]
	}
	return n > 0 && to-from == n
}

// insertsAtEdge reports whether the lines at the end of ls (dir -1), or at its start
// (dir 1), up to its first old line from that side, are only added lines, next to a
// context line: an insertion whose place is told by the neighbour beyond it.
func insertsAtEdge(ls []Line, dir int) bool {
	added := false
	for i := range ls {
		at := i
		if dir < 0 {
			at = len(ls) - 1 - i
		}
		switch ls[at].Kind {
		case LineAdd:
			added = true
		case LineRemove:
			return false
		case LineContext:
			return added
		}
	}
	return false
}

// contextRun counts the context lines at the start of ls (dir 1) or at its end (-1).
func contextRun(ls []Line, dir int) int {
	n := 0
	for i := range ls {
		at := i
		if dir < 0 {
			at = len(ls) - 1 - i
		}
		if ls[at].Kind != LineContext {
			break
		}
		n++
	}
	return n
}

// sinceOf maps the file an undo's or a redo's change expects onto t, what it holds now;
// nil when the expected file cannot be had (the history cannot rebuild it), which leaves
// every hunk that is not found as recorded refused.
func (pr *Proposal) sinceOf(c *change, t *lines.Text) *sinceMap {
	r := c.undoSpec
	if r == nil {
		return nil
	}
	b, err := r.fromBytes()
	if err != nil {
		return nil
	}
	enc, name := pr.declared(c.name)
	s, _, err := lines.Decode(b, enc, name)
	if err != nil {
		return nil
	}
	ft := lines.Split(s)
	m := sinceMapOf(ft.Strings(), t.Strings())
	m.ends = make([]lines.EOL, ft.Count())
	for i := range m.ends {
		m.ends[i] = ft.EOL(i)
	}
	m.index = map[string][]int{}
	for i := range t.Count() {
		m.index[t.Line(i)] = append(m.index[t.Line(i)], i)
	}
	return m
}

// endsKept reports whether the lines hunk h, placed at p in t, removes still end as the
// file expected ends them: a line whose terminator was changed since (a CRLF made LF by
// hand) is an edit of it, which a revert must not undo in passing. A line that ends the
// file without one is left to finalNewline.
func (m *sinceMap) endsKept(t *lines.Text, h *Hunk, p match.Place) bool {
	if m == nil || len(m.ends) == 0 {
		return true
	}
	if m.back == nil {
		m.back = make([]int, m.n)
		for i := range m.back {
			m.back[i] = -1
		}
		for j, at := range m.at {
			if at >= 0 {
				m.back[at] = j
			}
		}
	}
	at := p.Start
	for _, l := range h.Lines {
		switch l.Kind {
		case LineRemove:
			if at < len(m.back) && m.back[at] >= 0 { // m.n is t's line count
				now, was := t.EOL(at), m.ends[m.back[at]]
				if now != was && now != lines.EOLNone && was != lines.EOLNone {
					return false
				}
			}
			at++
		case LineContext:
			at++
		}
	}
	return true
}
