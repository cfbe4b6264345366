package applypatch

import (
	"slices"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// placeSince places hunk h of an undo or a redo, whose old lines start at line start of
// the file it expects, in t by the edits since (see expect): the cut hunk is placed where
// the edits put it only when its lines occur exactly there and nowhere else in the file.
func placeSince(m *sinceMap, name string, t *lines.Text, h *Hunk, start int) (Hunk, match.Place, bool) {
	cut, at, ok := m.expect(h, start)
	if !ok || oldCount(cut.Lines) == 0 {
		return Hunk{}, match.Place{}, false
	}
	pl := match.IndexLines(t, []match.Hunk{cut.view()}, name)
	p, miss := pl.Place(cut.view())
	if miss != nil || p.Pass != match.Exact || p.Start != at {
		return Hunk{}, match.Place{}, false
	}
	return cut, p, true
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

// placeRevert settles where hunk h of an undo or a redo goes, from where the ordinary
// search put it (place, or miss) and where the edits since the change put it (since):
// found as recorded, it must lie where the edits put it, or it is refused as at two
// places; not found (an edit next to its changed lines), it goes where the edits put it,
// cut to the context left there, if its lines occur exactly there and nowhere else.
// Either way it is refused when another place holds its changed lines with at least half
// of their recorded context lines still at their places around them (a copy made since):
// which of the two is the change's is not certain.
func placeRevert(since *sinceMap, name string, t *lines.Text, h *Hunk, start int, place match.Place, miss *match.Miss) (match.Place, *match.Miss) {
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
		cut, p, ok := placeSince(since, name, t, h, start)
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
