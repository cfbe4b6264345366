package applypatch

import (
	"slices"
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

// placeSince places hunk h of an undo or a redo, whose old lines start at line start of
// the file it expects, in t by the edits since (see expect): the cut hunk is placed where
// the edits put it only when its lines occur exactly there and nowhere else in the file.
func placeSince(m *sinceMap, s, name string, h *Hunk, start int) (Hunk, match.Place, bool) {
	cut, at, ok := m.expect(h, start)
	if !ok || oldCount(cut.Lines) == 0 {
		return Hunk{}, match.Place{}, false
	}
	_, pl := match.Index(s, []match.Hunk{cut.view()}, name)
	p, miss := pl.Place(cut.view())
	if miss != nil || p.Pass != match.Exact || p.Start != at {
		return Hunk{}, match.Place{}, false
	}
	return cut, p, true
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

// removesExactly reports whether the lines hunk h removes at place p are the file's lines
// byte for byte. An undo or a redo placed by a looser pass would otherwise overwrite a
// line edited since only in its spaces or punctuation: those edits are the user's, and
// never overwritten.
func removesExactly(t *lines.Text, h *Hunk, p match.Place) bool {
	at := p.Start
	for _, l := range h.Lines {
		switch l.Kind {
		case LineRemove:
			if at >= t.Count() || t.Line(at) != l.Text {
				return false
			}
			at++
		case LineContext:
			at++
		}
	}
	return true
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
	m := sinceMapOf(lines.Split(s).Strings(), t.Strings())
	m.index = map[string][]int{}
	for i := range t.Count() {
		m.index[t.Line(i)] = append(m.index[t.Line(i)], i)
	}
	return m
}

// placeRevert settles where hunk h of an undo or a redo goes, from where the ordinary
// search put it (place, or miss) and where the edits since the change put it (since):
// found as recorded, it must lie where the edits put it, or it is refused as at two
// places; not found (an edit next to its changed lines), it goes where the edits put it,
// cut to the context left there, if its lines occur exactly there and nowhere else.
// Either way it is refused when another place holds its changed lines with at least half
// of their recorded context lines still at their places around them (a copy made since):
// which of the two is the change's is not certain.
func placeRevert(since *sinceMap, s, name string, t *lines.Text, h *Hunk, start int, place match.Place, miss *match.Miss) (match.Place, *match.Miss) {
	if since == nil {
		return place, miss
	}
	whole := *h
	switch {
	case miss == nil:
		cut, at, ok := since.expect(h, start)
		lead := contextRun(h.Lines, 1) - contextRun(cut.Lines, 1) // the lead context the cut dropped
		if !ok || place.Start != at-lead {
			lines := []int{place.Start + 1}
			if ok {
				lines = append(lines, at-lead+1)
				slices.Sort(lines)
			}
			return match.Place{}, &match.Miss{Reason: match.Ambiguous, Lines: lines}
		}
	case miss.Reason == match.NotFound:
		cut, p, ok := placeSince(since, s, name, h, start)
		if !ok {
			return place, miss
		}
		*h, place = cut, p
	default:
		return place, miss
	}
	at := place.Start + contextRun(h.Lines, 1) // where its changed lines start now
	if rival := since.rival(t, &whole, at); rival >= 0 {
		lines := []int{at + 1, rival + 1}
		slices.Sort(lines)
		*h = whole
		return match.Place{}, &match.Miss{Reason: match.Ambiguous, Lines: lines}
	}
	return place, nil
}

// rival is another line of t than at where hunk h's changed lines start with at least
// half of its recorded context lines still at their places around them, or -1. Lines it only inserts
// are looked for where its context lines next to them are.
func (m *sinceMap) rival(t *lines.Text, h *Hunk, at int) int {
	lead, trail := contextRun(h.Lines, 1), contextRun(h.Lines, -1)
	if lead == len(h.Lines) {
		return -1
	}
	var old []string // the middle's old lines
	for _, l := range h.Lines[lead : len(h.Lines)-trail] {
		if l.Kind != LineAdd {
			old = append(old, l.Text)
		}
	}
	need := (lead + trail + 1) / 2
	if need == 0 {
		return -1
	}
	var starts []int
	switch {
	case len(old) > 0:
		starts = m.index[old[0]]
	case trail > 0:
		starts = m.index[h.Lines[len(h.Lines)-trail].Text]
	default:
		for _, q := range m.index[h.Lines[lead-1].Text] {
			starts = append(starts, q+1)
		}
	}
	for _, q := range starts {
		if q != at && holdsAt(t, old, q) && keptContext(t, h, lead, trail, q, len(old)) >= need {
			return q
		}
	}
	return -1
}

// holdsAt reports whether t holds the lines old from line q.
func holdsAt(t *lines.Text, old []string, q int) bool {
	if q < 0 || q+len(old) > t.Count() {
		return false
	}
	for k, l := range old {
		if t.Line(q+k) != l {
			return false
		}
	}
	return true
}

// keptContext counts the context lines of h still at their places around its n changed
// old lines at line q of t: each lead one as far above, each trail one as far below, an
// edited line between them or not.
func keptContext(t *lines.Text, h *Hunk, lead, trail, q, n int) int {
	kept := 0
	for k := 1; k <= lead; k++ {
		if q-k >= 0 && t.Line(q-k) == h.Lines[lead-k].Text {
			kept++
		}
	}
	for k := range trail {
		if q+n+k < t.Count() && t.Line(q+n+k) == h.Lines[len(h.Lines)-trail+k].Text {
			kept++
		}
	}
	return kept
}
