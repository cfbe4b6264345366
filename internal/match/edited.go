package match

import "sort"

// editedBody returns the region of an anchored body, the lines [lo, hi), that holds a
// hunk's old lines as they were before an edit (see bodyRead.ok): most of them there
// exactly, three of them with words, and the rest edited by text added or removed,
// gone, or apart by lines inserted. The region may run past the body (the hunk's last
// lines may follow it), up to stop, where the hunk's lines were found. It is nil when the body holds
// nothing that close. A hunk found only past the body its anchor opens, while the body
// holds such a region, was written before the body was edited: it belongs there, not
// where its lines now occur.
//
// It costs no pass over the body: the exact occurrences of the hunk's lines inside it,
// from the index, vote for where the region starts, and only the best-voted starts are
// compared, each by a diff of a few lines, within bodyBudget.
func (pl *Placer) editedBody(old []string, lo, hi, stop int) *NearMiss {
	m := min(len(old), nearMissCompare)
	if m < bodyWords || lo >= hi {
		return nil
	}
	want := normalized(old[:m], Punctuation)
	best, bestExact := -1, 0
	for _, s := range pl.bodyStarts(want, lo, hi) {
		if !pl.spendBody(len(want) + 3*nearMissSlack) {
			break
		}
		if r := pl.editedAt(want, s, lo, hi, stop); r.ok() && r.exact > bestExact {
			best, bestExact = r.start, r.exact
		}
	}
	if best < 0 {
		return nil
	}
	from := max(best, lo)
	shown, agree := nearDiff(old[:m], pl.t.Span(from, min(from+m+nearMissSlack, stop)), from)
	return &NearMiss{Start: from + 1, Agree: agree, Of: m, Diff: shown}
}

// bodyBudget is how many lines the comparisons with anchored bodies read for all the
// hunks of a text of n lines (see spendBody): a few passes over the text, so that a
// payload of thousands of hunks each found past a long anchored body costs no more
// than a few passes whatever it holds. Past it, hunks are placed as their lines say, as
// before the comparison was made.
func bodyBudget(n int) int { return 4*n + 1<<16 }

// spendBody counts n more lines read in anchored bodies, and reports whether they are
// within bodyBudget; past it, nothing is counted.
func (pl *Placer) spendBody(n int) bool {
	if pl.bodyRead+n > bodyBudget(pl.t.Count()) {
		return false
	}
	pl.bodyRead += n
	return true
}

// bodyStarts returns the starts that the hunk's lines, found exactly inside [lo, hi),
// point at most often, at most bodyRivals of them (see rivals).
func (pl *Placer) bodyStarts(want []string, lo, hi int) []int {
	lv := pl.idx.at(Punctuation)
	votes := map[int]float64{}
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
	return rivals(votes, lo, bodyRivals)
}

// bodyRivals is how many of the best-voted starts in a body are compared: more than a
// near miss compares, since a body of boilerplate ("if err != nil") gives many starts
// the same votes, and the edited line, which votes for none, tells them apart.
const bodyRivals = 32
