package applypatch

import (
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// retrimBudget is the most hunks of one file an undo or a redo looks for again with less
// context (see retrimmed): a file edited around more of them than that changed too much
// for the revert to be certain, and each look reads the file again.
const retrimBudget = 8

// retrimmed places an undo's or a redo's hunk whose context lines were edited since
// (edits next to the change, not of it): the hunk with fewer of its leading and trailing
// context lines, the most kept first, placed where the lines it keeps occur exactly and
// once. The lines it changes are never dropped, and a hunk that only adds keeps at least
// one context line to place them by. When two hunks that keep as much context place at
// different lines, neither is certain and ok is false; so it is when none places.
func retrimmed(s, name string, h *Hunk) (Hunk, match.Place, bool) {
	lead, trail := contextRun(h.Lines, 1), contextRun(h.Lines, -1)
	if lead == len(h.Lines) {
		return Hunk{}, match.Place{}, false
	}
	removes := oldCount(h.Lines) > lead+trail
	for kept := lead + trail - 1; kept >= 0; kept-- {
		var found Hunk
		var at match.Place
		n := 0
		for l := min(lead, kept); l >= 0 && kept-l <= trail; l-- {
			if kept == 0 && !removes {
				continue // only added lines: nothing to place them by
			}
			th := Hunk{Line: h.Line, Lines: h.Lines[lead-l : len(h.Lines)-trail+(kept-l)]}
			_, pl := match.Index(s, []match.Hunk{th.view()}, name)
			p, miss := pl.Place(th.view())
			if miss != nil || p.Pass != match.Exact {
				continue
			}
			if n > 0 && p.Start+l != at.Start+contextRun(found.Lines, 1) {
				return Hunk{}, match.Place{}, false // the changed lines at two places
			}
			if n == 0 {
				found, at = th, p
			}
			n++
		}
		if n > 0 {
			return found, at, true
		}
	}
	return Hunk{}, match.Place{}, false
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
