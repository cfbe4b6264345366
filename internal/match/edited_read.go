package match

import (
	"strings"
	"unicode"

	"github.com/applypatch/applypatch/internal/diff"
)

// A bodyRead is what a diff of a hunk's lines against a region of an anchored body says
// (see editedAt).
type bodyRead struct {
	start  int  // the body line the hunk's first line stands for
	exact  int  // hunk lines there exactly
	worded int  // of those, the lines with a letter or a digit
	edited int  // hunk lines there with text added or removed (see alike)
	gone   int  // hunk lines missing between lines that are there
	added  int  // runs of body lines inserted between lines that are there
	edits  int  // how many hunk lines may be edited or gone (see bodyEdits)
	failed bool // the region is ruled out
}

// ok reports whether the region holds the hunk's lines as they were before an edit:
// at least three lines with words there exactly, the lines edited or gone no more than
// one in four, and some evidence of the edit (a line edited or gone, or lines inserted
// between). Brackets, blank lines and one or two lines with words occur in many bodies
// alike, and in a hunk of two or three lines one line differing is half of it, too
// little to tell a body edited since from a sibling written from one template.
func (r bodyRead) ok() bool {
	if r.failed || r.worded < bodyWords || r.edited+r.gone > r.edits {
		return false
	}
	return r.edited > 0 || r.gone > 0 || r.added > 0
}

// bodyWords is how many lines with a letter or a digit an edited region holds exactly.
const bodyWords = 3

// bodyEdits is how many of m hunk lines an edited body may differ in: one in four.
func bodyEdits(m int) int { return m / 4 }

// editedAt diffs the hunk's lines want against the lines about start s (a few more than
// the hunk has, up to stop) and reads the diff. The lines both have are there exactly.
// Between two of those, the lines each side leaves out are paired in order, each hunk
// line with the next body line that reads as it edited (see alike) inside the body
// [lo, hi) (the edit must be the body's); a hunk line left unpaired is gone, a body line
// inserted, but not both at one place: that is text replaced, and rules the region
// out. Before the first and after the last line there, body lines are the edge of the
// window, and a hunk line that is not edited rules the region out.
func (pl *Placer) editedAt(want []string, s, lo, hi, stop int) bodyRead {
	from, to := max(s-nearMissSlack, lo), min(s+len(want)+2*nearMissSlack, stop)
	r := bodyRead{edits: bodyEdits(len(want))}
	if from >= to {
		r.failed = true
		return r
	}
	body := normalized(pl.t.Span(from, to), Punctuation)
	var run []diff.Op // the lines left out since the last line there
	seen := false     // whether a line is there before run
	for _, op := range diff.Lines(want, body) {
		if op.Kind != diff.KindContext {
			run = append(run, op)
			continue
		}
		if !seen {
			r.start = from + op.B - op.A
		}
		r.change(want, body, from, hi, run, seen)
		run, seen = run[:0], true
		r.exact++
		if hasWord(want[op.A]) {
			r.worded++
		}
	}
	r.change(want, body, from, hi, run, false)
	r.failed = r.failed || !seen // no line of the hunk there at all
	return r
}

// change reads one run of lines the diff leaves out on either side (see editedAt);
// inside says whether the run lies between two lines that are there.
func (r *bodyRead) change(want, body []string, from, hi int, ops []diff.Op, inside bool) {
	var gone, added []int
	for _, op := range ops {
		switch op.Kind {
		case diff.KindRemove:
			gone = append(gone, op.A)
		case diff.KindAdd:
			added = append(added, op.B)
		}
	}
	unpaired, j, skipped := 0, 0, 0
	for _, k := range gone {
		at := j
		for at < len(added) && (from+added[at] >= hi || !alike(want[k], body[added[at]])) {
			at++
		}
		if at == len(added) {
			unpaired++
			continue
		}
		skipped += at - j
		r.edited, j = r.edited+1, at+1
	}
	inserted := skipped + len(added) - j
	switch {
	case unpaired > 0 && (!inside || inserted > 0):
		r.failed = true // hunk lines missing at the edge, or text replaced
	case inside:
		r.gone += unpaired
		if inserted > 0 {
			r.added++
		}
	}
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
