package match

import (
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/applypatch/applypatch/internal/diff"
)

// editedBody returns the region of an anchored body, the lines [lo, hi), that holds a
// hunk's old lines as they were before an edit: all of them but a few, and at least one
// (see bodyEdits), each of those few alike to a body line in its place (see alike: text
// added or removed), and at least one line with a letter or a digit exactly. Lines merely further apart than
// the hunk has them are no such evidence: blank lines and brackets move about. A hunk
// of one line is there edited only when one of it and a body line holds the other at
// its start (a comment added): a short line is found in many lines.
// The region may run past the body (the hunk's last lines may follow it), up to stop,
// where the hunk's lines were found. It is nil when the body holds nothing that close.
// A hunk found only past the body its anchor opens, while the body holds such a region,
// was written before the body was edited: it belongs there, not where its lines now
// occur.
//
// It costs no pass over the body: the exact occurrences of the hunk's lines inside it,
// from the index, vote for where the region starts, and only the best-voted starts are
// compared, each by a diff of a few lines.
func (pl *Placer) editedBody(old []string, lo, hi, stop int) *NearMiss {
	m := min(len(old), nearMissCompare)
	if m == 0 || lo >= hi {
		return nil
	}
	want := normalized(old[:m], Punctuation)
	if m == 1 {
		return pl.editedLine(old[0], want[0], lo, hi)
	}
	best, bestExact := -1, 0
	for _, s := range pl.bodyStarts(want, lo, hi) {
		if exact, ok := pl.editedAt(want, s, lo, hi, stop); ok && exact > bestExact {
			best, bestExact = s, exact
		}
	}
	if best < 0 {
		return nil
	}
	if _, d := pl.bestNear(want[0], best); best+d >= lo {
		best += d // shown from the hunk's first line
	}
	from := max(best, lo)
	shown, agree := nearDiff(old[:m], pl.t.Span(from, min(from+m+nearMissSlack, stop)), from)
	return &NearMiss{Start: from + 1, Agree: agree, Of: m, Diff: shown}
}

// editedLine is editedBody for a hunk of one line, raw and normalised: the first line of
// the body that holds it at its start, or that it holds at its start.
func (pl *Placer) editedLine(raw, w string, lo, hi int) *NearMiss {
	if !hasWord(w) || pl.bodyRead+hi-lo > lineBodyBudget(pl.t.Count()) {
		return nil
	}
	pl.bodyRead += hi - lo
	for q := lo; q < hi; q++ {
		if l := normalize[Punctuation](pl.t.Line(q)); l != "" && (strings.HasPrefix(l, w) || strings.HasPrefix(w, l)) {
			shown, agree := nearDiff([]string{raw}, pl.t.Span(q, q+1), q)
			return &NearMiss{Start: q + 1, Agree: agree, Of: 1, Diff: shown}
		}
	}
	return nil
}

// lineBodyBudget is how many body lines editedLine reads for all the hunks of a text of
// n lines: a few passes over the text, so that a payload of thousands of one-line hunks
// each found past a long anchored body costs no more than a few passes. Past it a hunk
// of one line is placed as its lines say, as before the check was made.
func lineBodyBudget(n int) int { return 4*n + 1<<16 }

// bodyStarts returns the starts inside [lo, hi) that the hunk's lines, found there
// exactly, point at most often, at most nearMissRivals of them, the earliest first
// among equals.
func (pl *Placer) bodyStarts(want []string, lo, hi int) []int {
	lv := pl.idx.at(Punctuation)
	votes := map[int]int{}
	for _, k := range sample(len(want)) {
		ps := lv.positions(want[k])
		i := sort.Search(len(ps), func(i int) bool { return int(ps[i]) >= lo })
		for _, p := range ps[i:min(len(ps), i+nearMissCommon)] {
			if int(p) >= hi {
				break
			}
			votes[int(p)-k]++
		}
	}
	starts := make([]int, 0, len(votes))
	for s := range votes {
		starts = append(starts, s)
	}
	slices.SortFunc(starts, func(a, b int) int {
		if votes[a] != votes[b] {
			return votes[b] - votes[a]
		}
		return a - b
	})
	return starts[:min(len(starts), nearMissRivals)]
}

// bodyEdits is how many of m hunk lines an edited body may differ in: one in four, and
// one at least.
func bodyEdits(m int) int { return max(1, m/4) }

// editedAt aligns the hunk's lines want with the lines about start s (a diff of the
// two, over a few lines more than the hunk has, up to stop) and reads the alignment:
// the lines both have are there exactly; a hunk line the diff leaves out, paired in
// order with a body line it left out that reads as it edited (see alike), inside the
// body [lo, hi) (the edit must be the body's), is edited; any other is gone, which rules
// the region out. Body lines inserted between are allowed. It reports how many lines are there exactly, and
// whether the region is the hunk's lines edited (see editedBody).
func (pl *Placer) editedAt(want []string, s, lo, hi, stop int) (exact int, ok bool) {
	from, to := max(s-nearMissSlack, lo), min(s+len(want)+2*nearMissSlack, stop)
	if from >= to {
		return 0, false
	}
	body := normalized(pl.t.Span(from, to), Punctuation)
	worded, differ, edits := false, 0, bodyEdits(len(want))
	var gone, added []int   // the hunk's and the body's lines of the change being read
	settle := func() bool { // pairs a change's lines, in order, each hunk line with the next alike body line
		j := 0
		for _, k := range gone {
			for j < len(added) && (from+added[j] >= hi || !alike(want[k], body[added[j]])) {
				j++ // a line inserted since, or past the body
			}
			if j == len(added) {
				return false
			}
			j++
		}
		differ += len(gone)
		gone, added = gone[:0], added[:0]
		return differ <= edits
	}
	for _, op := range diff.Lines(want, body) {
		switch op.Kind {
		case diff.KindContext:
			if !settle() {
				return exact, false
			}
			exact++
			worded = worded || hasWord(want[op.A])
		case diff.KindRemove:
			gone = append(gone, op.A)
		case diff.KindAdd:
			added = append(added, op.B)
		}
	}
	return exact, settle() && worded && differ > 0
}

// alike reports whether line b reads as line a edited by adding or removing text
// only: one holds the other at its start (a comment added, a statement cut short), or
// holds all of its characters in order and is at most twice as long (a name
// lengthened, an argument dropped). A line in which text was replaced (a name for
// another) is not alike: sibling functions written from one template differ just so,
// and that is no sign of an edit.
func alike(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == "" {
		return false
	}
	return strings.HasPrefix(b, a) || len(b) <= 2*len(a) && subsequence(a, b)
}

// subsequence reports whether b holds every byte of a, in order.
func subsequence(a, b string) bool {
	for i := 0; i < len(a); i++ {
		k := strings.IndexByte(b, a[i])
		if k < 0 {
			return false
		}
		b = b[k+1:]
	}
	return true
}

// hasWord reports whether a line holds a letter or a digit: lines of brackets and
// punctuation alone occur everywhere and say nothing of where a hunk was.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
