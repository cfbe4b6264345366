package match

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/applypatch/applypatch/internal/diff"
	"github.com/applypatch/applypatch/internal/show"
)

// A NearMiss is the region of the file most like a hunk that was not found: Start is its
// 1-based first line, Agree how many of the hunk's Of expected lines occur there, and Diff
// shows the hunk's expected lines against the file's.
type NearMiss struct {
	Start, Agree, Of int
	Diff             string
}

// The near-miss search has a cost budget, so that a hunk that misses costs about as much
// as reading it and the file, whatever its size, and its text stays small.
const (
	// nearMissSample is the most hunk lines that vote for a region, spread evenly over
	// the hunk.
	nearMissSample = 256
	// nearMissCommon is how many file lines may hold a word and it still votes: common
	// words ("return", "self") say nothing about where a hunk was meant to go.
	nearMissCommon = 64
	// nearMissRivals is how many of the best-voted regions are compared line by line.
	nearMissRivals = 8
	// nearMissCompare is the most hunk lines compared with a region and diffed.
	nearMissCompare = 200
	// nearMissShown is the most diff lines shown, and nearMissWidth the most bytes of
	// each.
	nearMissShown = 32
	nearMissWidth = 120
)

// nearMiss finds the region of the file most like old, at the loosest pass, by line
// similarity: each word of (a sample of) the hunk's lines votes for the start its
// occurrences imply, so a hunk with a typo on every line still points at its place; the
// best-voted starts are then compared line by line, and the most similar wins (the
// earliest at or after the cursor among equals).
func (pl *Placer) nearMiss(old []string) *NearMiss {
	want := normalized(old, Punctuation)
	votes := pl.wordVotes(want, words)
	if len(votes) == 0 { // no word of the hunk occurs: a typo inside each, or a line of one word
		votes = pl.wordVotes(want, grams)
	}
	if len(votes) == 0 {
		return nil
	}
	best, bestScore := -1, -1.0
	for _, s := range rivals(votes, pl.cursor, nearMissRivals) {
		score := pl.similarity(want, s)
		if score > bestScore || (score == bestScore && better(s, best, pl.cursor)) {
			best, bestScore = s, score
		}
	}
	if bestScore <= 0 {
		return nil
	}
	if _, d := pl.bestNear(want[0], best); d != 0 { // start where the hunk's first line is
		best += d
	}
	n := min(len(old), nearMissCompare)
	// The file's side runs a little longer than the hunk's, so that lines the hunk left
	// out do not push its last lines out of the view; file lines past its end are cut.
	lo, hi := max(best, 0), min(max(best, 0)+n+max(2*nearMissSlack, n/4), pl.t.Count())
	diff, agree := nearDiff(old[:n], pl.t.Span(lo, hi), lo)
	if n < len(old) {
		diff += fmt.Sprintf("\n(only the hunk's first %d of %d expected lines were compared)", n, len(old))
	}
	return &NearMiss{Start: lo + 1, Agree: agree, Of: n, Diff: diff}
}

// sample returns the indexes of at most nearMissSample lines, spread evenly over n.
func sample(n int) []int {
	step := max(1, (n+nearMissSample-1)/nearMissSample)
	var out []int
	for k := 0; k < n; k += step {
		out = append(out, k)
	}
	return out
}

// wordVotes scans the file once for the words of the sampled hunk lines and returns, for
// each start the occurrences imply, its votes: a hunk line gives each of its words an
// equal share of one vote. split cuts a line into its words (or into grams).
func (pl *Placer) wordVotes(want []string, split func(string) []string) map[int]float64 {
	ks := sample(len(want))
	lineWords := make([][]string, len(ks))
	wanted := map[string][]int32{}
	for i, k := range ks {
		lineWords[i] = split(want[k])
		for _, w := range lineWords[i] {
			wanted[w] = nil
		}
	}
	if len(wanted) == 0 {
		return nil
	}
	common := map[string]bool{}
	for p := range pl.t.Count() {
		l := pl.t.Line(p)
		for _, w := range split(fold(l)) {
			ps, ok := wanted[w]
			if !ok || common[w] || (len(ps) > 0 && ps[len(ps)-1] == int32(p)) {
				continue
			}
			if len(ps) == nearMissCommon {
				common[w], wanted[w] = true, nil
				continue
			}
			wanted[w] = append(ps, int32(p))
		}
	}
	votes := map[int]float64{}
	for i, k := range ks {
		share := 1 / float64(len(lineWords[i])+1)
		for _, w := range lineWords[i] {
			for _, p := range wanted[w] {
				votes[int(p)-k] += share
			}
		}
	}
	return votes
}

// rivals returns the best-voted starts, at most n of them, those at or after the
// cursor, then the earlier, first among equals.
func rivals(votes map[int]float64, cursor, n int) []int {
	starts := make([]int, 0, len(votes))
	for s := range votes {
		starts = append(starts, s)
	}
	slices.SortFunc(starts, func(a, b int) int {
		switch {
		case votes[a] > votes[b]:
			return -1
		case votes[a] < votes[b]:
			return 1
		case better(a, b, cursor):
			return -1
		}
		return 1
	})
	return starts[:min(len(starts), n)]
}

// nearMissSlack is how far from its place in a region a hunk line may be found: the file
// may have a few lines more or fewer than the hunk expects.
const nearMissSlack = 2

// similarity scores the file from start s against the hunk's lines (normalised): each
// line's best similarity to a file line near its place, less a little for the distance.
func (pl *Placer) similarity(want []string, s int) float64 {
	score := 0.0
	for k := range min(len(want), nearMissCompare) {
		sim, _ := pl.bestNear(want[k], s+k)
		score += sim
	}
	return score
}

// bestNear returns the best similarity of line w to the file lines within nearMissSlack
// of p, and the offset where it is found.
func (pl *Placer) bestNear(w string, p int) (float64, int) {
	best, at := 0.0, 0
	for d := range 2*nearMissSlack + 1 {
		d -= nearMissSlack
		if q := p + d; q >= 0 && q < pl.t.Count() {
			sim := lineSimilarity(w, normalize[Punctuation](pl.t.Line(q))) * (1 - 0.05*float64(nearAbs(d)))
			if sim > best || (sim == best && nearAbs(d) < nearAbs(at)) {
				best, at = sim, d
			}
		}
	}
	return best, at
}

func nearAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// lineSimilarity is the Dice coefficient of two lines' character pairs: 1 for equal
// lines, near 1 for a one-character typo, 0 for lines with nothing in common.
func lineSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	pa, pb := pairs(a), pairs(b)
	if len(pa) == 0 || len(pb) == 0 {
		return 0
	}
	count := make(map[[2]rune]int, len(pa))
	for _, p := range pa {
		count[p]++
	}
	common := 0
	for _, p := range pb {
		if count[p] > 0 {
			count[p]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(pa)+len(pb))
}

// pairs returns the adjacent character pairs of s.
func pairs(s string) [][2]rune {
	rs := []rune(s)
	out := make([][2]rune, 0, max(len(rs)-1, 0))
	for i := 1; i < len(rs); i++ {
		out = append(out, [2]rune{rs[i-1], rs[i]})
	}
	return out
}

// words splits a line into its runs of letters, digits and underscores.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// gramLen is how many characters a gram of a word holds.
const gramLen = 4

// grams cuts a line into the grams of its words: each run of gramLen characters of a
// longer word, a shorter word whole. A word with a typo inside shares most of its grams
// with the word meant, where it shares no whole word.
func grams(s string) []string {
	var out []string
	for _, w := range words(s) {
		end := 0 // the end of the gram that starts at i: gramLen characters on
		for range gramLen {
			if end < len(w) {
				_, n := utf8.DecodeRuneInString(w[end:])
				end += n
			}
		}
		if end == len(w) {
			out = append(out, w) // a short word, whole
			continue
		}
		for i := 0; end <= len(w); {
			out = append(out, w[i:end])
			if end == len(w) {
				break
			}
			_, n := utf8.DecodeRuneInString(w[i:])
			_, m := utf8.DecodeRuneInString(w[end:])
			i, end = i+n, end+m
		}
	}
	return out
}

// better prefers starts at or after the cursor, then earlier ones.
func better(s, best, cursor int) bool {
	if (s >= cursor) != (best >= cursor) {
		return s >= cursor
	}
	return s < best
}

// nearDiff shows the hunk's expected lines against the file's lines from line lo: file
// line numbers on kept and '+' lines, '-' for expected lines the file lacks. It returns
// how many expected lines the file has there too, and shows at most nearMissShown lines.
func nearDiff(old, file []string, lo int) (string, int) {
	var b strings.Builder
	agree, shown, more := 0, 0, 0
	ops := pastEnd(diff.Lines(normalized(old, Punctuation), normalized(file, Punctuation)))
	for _, op := range ops {
		if op.Kind == diff.KindContext {
			agree++
		}
		if shown == nearMissShown {
			more++
			continue
		}
		shown++
		switch op.Kind {
		case diff.KindContext:
			fmt.Fprintf(&b, "  %6d  %s\n", lo+op.B+1, show.ClipLineTo(show.Reveal(file[op.B]), nearMissWidth))
		case diff.KindRemove:
			fmt.Fprintf(&b, "- %6s  %s\n", "", show.ClipLineTo(show.Reveal(old[op.A]), nearMissWidth))
		case diff.KindAdd:
			fmt.Fprintf(&b, "+ %6d  %s\n", lo+op.B+1, show.ClipLineTo(show.Reveal(file[op.B]), nearMissWidth))
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more diff lines not shown)\n", more)
	}
	return strings.TrimSuffix(b.String(), "\n"), agree
}

// pastEnd cuts from a near miss's diff the file lines after the hunk's end: in the
// changes after its last line in common, the file lines beyond as many as the hunk's
// lines they stand for.
func pastEnd(ops []diff.Op) []diff.Op {
	last := len(ops) - 1
	for last >= 0 && ops[last].Kind != diff.KindContext {
		last--
	}
	removed, added := 0, 0
	for _, op := range ops[last+1:] {
		if op.Kind == diff.KindRemove {
			removed++
		} else {
			added++
		}
	}
	for i := len(ops) - 1; i > last && added > removed; i-- {
		if ops[i].Kind == diff.KindAdd {
			ops = slices.Delete(ops, i, i+1)
			added--
		}
	}
	return ops
}

// appliedAt is where the hunk's new side (its context and '+' lines) occurs in the file,
// 1-based, when its old side was not found: the mark of a patch that was applied already.
// It is 0 when the hunk adds no line (context alone is no evidence: a deletion's context
// is in the file whether or not it was applied), or its new side is not there either. It
// only shapes the message: nothing is placed by it.
func (pl *Placer) appliedAt(h Hunk) int {
	if !adds(h) {
		return 0
	}
	newSide := side(h, Add)
	var context []int // the indexes in newSide of the hunk's context lines, which the index holds
	for i, k := 0, 0; i < h.Len(); i++ {
		switch kind, _ := h.LineAt(i); kind {
		case Context:
			context = append(context, k)
			k++
		case Add:
			k++
		}
	}
	for _, p := range passes {
		ms := pl.idx.newSide(newSide, context, p)
		if at := ms.first(0, pl.t.Count()); at >= 0 {
			return at + 1
		}
	}
	return 0
}

// adds reports whether the hunk has a '+' line.
func adds(h Hunk) bool {
	for i := range h.Len() {
		if kind, _ := h.LineAt(i); kind == Add {
			return true
		}
	}
	return false
}

// Explain adds to a NotFound miss of h the facts that let a model fix the hunk: the line
// where its new side occurs, when it looks applied already, else the region of the text
// most like it. Other misses it leaves as they are.
func (pl *Placer) Explain(m *Miss, h Hunk) {
	if m.Reason != NotFound {
		return
	}
	if pl.explained == explainBudget {
		m.Unexplained = true
		return
	}
	pl.explained++
	if m.AppliedAt = pl.appliedAt(h); m.AppliedAt == 0 {
		old := side(h, Remove)
		if m.Near = pl.nearMiss(old); m.Near == nil {
			m.Occurs = pl.someOccurs(old)
		}
	}
}

// explainBudget is how many hunks that miss in one file are explained (where their new
// side lies, or the closest region), each up to a pass over the file: the first few say
// enough for a model to re-read the file, and a payload of thousands of misses costs no
// more than a few passes.
const explainBudget = 8

// someOccurs reports whether some line of old occurs in the text, at the loosest pass.
func (pl *Placer) someOccurs(old []string) bool {
	lv := pl.idx.at(Punctuation)
	for _, w := range normalized(old, Punctuation) {
		if len(lv.positions(w)) > 0 {
			return true
		}
	}
	return false
}
