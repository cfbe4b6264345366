// Package diff compares two sequences of lines: it finds an edit script that turns one
// into the other and groups it into unified-diff hunks.
package diff

// This file holds a small line diff: Myers' O(ND) algorithm with the linear-space
// "middle snake" divide and conquer, run on interned lines after the common prefix and
// suffix are stripped and the lines found in only one side are set aside. The result is a
// shortest edit script while each split needs at most a cost limit of edits (see
// myersLimit); past that, a split takes the furthest point the forward search reached, as GNU
// diff does when a comparison is too expensive, so a file revised to its reversed lines
// costs O((N+M)·limit) rather than O((N+M)·D), and the script is still a correct one,
// only perhaps not the shortest. A post-pass slides each block of inserted or
// removed lines to its most natural equivalent position (see slideChangeRuns). The only
// randomness, the line interner's hash seed, never shows in the result: the output
// depends only on the inputs.

// Kind says what an edit script does with a line. Its value is the byte a unified diff
// marks such a line with.
type Kind byte

const (
	// KindContext is a line both sides have, kept.
	KindContext Kind = ' '
	// KindRemove is a line of the first side that the second lacks.
	KindRemove Kind = '-'
	// KindAdd is a line of the second side that the first lacks.
	KindAdd Kind = '+'
)

// Op is one step of an edit script from [Lines].
type Op struct {
	// Kind is KindContext, KindRemove or KindAdd.
	Kind Kind
	// A is the 0-based index into a of a context or removed line; for an added line it is
	// the index in a before which the line goes.
	A int
	// B is the 0-based index into b of a context or added line; for a removed line it is
	// the index in b at that point.
	B int
}

// Lines returns a shortest edit script turning a into b: a sequence of ops covering every
// line of a and b in order. Context ops refer to a[A]==b[B]; removals to a[A]; additions
// to b[B]. Within each changed region the removals come before the additions. Past a cost
// budget the script is still correct but may not be the shortest, so that any input
// costs time roughly linear in its size.
func Lines(a, b []string) []Op {
	ca, cb := diffChangedLines(a, b)
	return diffOpsFromFlags(ca, cb)
}

// Line is one line of a [Hunk]: what the script does with it, and its text.
type Line struct {
	// Kind is KindContext, KindRemove or KindAdd.
	Kind Kind
	// Text is the line, without its terminator.
	Text string
}

// Hunk is one hunk of a unified diff.
type Hunk struct {
	// OldStart is the 0-based start in a; OldLen the number of a-lines (context and
	// removed) the hunk covers.
	OldStart, OldLen int
	// NewStart is the 0-based start in b; NewLen the number of b-lines (context and
	// added) the hunk covers.
	NewStart, NewLen int
	// Lines are the hunk's lines in order.
	Lines []Line
}

// Hunks groups Lines(a, b) into hunks with context lines of context on each side,
// merging two changes whose gap is at most 2*context lines (as GNU diff -U does). A
// negative context counts as 0. It returns nil when a and b are equal.
func Hunks(a, b []string, context int) []Hunk {
	context = max(context, 0)
	ops := Lines(a, b)
	var hunks []Hunk
	for i := 0; i < len(ops); {
		first := nextDiffChange(ops, i)
		if first == len(ops) {
			break
		}
		last := diffGroupEnd(ops, first, context)
		start, end := max(first-context, 0), min(last+context, len(ops))
		hunks = append(hunks, newDiffHunk(ops[start:end], a, b))
		i = end
	}
	return hunks
}

// nextDiffChange returns the index of the first op at or after i that is not context, or
// len(ops).
func nextDiffChange(ops []Op, i int) int {
	for i < len(ops) && ops[i].Kind == KindContext {
		i++
	}
	return i
}

// diffGroupEnd returns the index just past the last change of the hunk whose first change is
// ops[i]: changes separated by at most 2*context context ops belong to the same hunk.
func diffGroupEnd(ops []Op, i, context int) int {
	for {
		for i < len(ops) && ops[i].Kind != KindContext {
			i++
		}
		next := nextDiffChange(ops, i)
		if next == len(ops) || next-i > 2*context {
			return i
		}
		i = next
	}
}

// newDiffHunk builds the hunk covering ops, taking line text from a and b.
func newDiffHunk(ops []Op, a, b []string) Hunk {
	h := Hunk{OldStart: ops[0].A, NewStart: ops[0].B, Lines: make([]Line, len(ops))}
	for i, op := range ops {
		switch op.Kind {
		case KindContext:
			h.OldLen++
			h.NewLen++
			h.Lines[i] = Line{Kind: KindContext, Text: a[op.A]}
		case KindRemove:
			h.OldLen++
			h.Lines[i] = Line{Kind: KindRemove, Text: a[op.A]}
		case KindAdd:
			h.NewLen++
			h.Lines[i] = Line{Kind: KindAdd, Text: b[op.B]}
		}
	}
	return h
}

// diffOpsFromFlags turns per-line "changed" flags into an edit script. The unchanged lines of
// a and b pair up in order; at each point the changed lines of a are removed before the
// changed lines of b are inserted.
func diffOpsFromFlags(ca, cb []bool) []Op {
	kept := 0
	for _, c := range ca {
		if !c {
			kept++
		}
	}
	ops := make([]Op, 0, len(ca)+len(cb)-kept)
	i, j := 0, 0
	for i < len(ca) || j < len(cb) {
		switch {
		case i < len(ca) && ca[i]:
			ops = append(ops, Op{Kind: KindRemove, A: i, B: j})
			i++
		case j < len(cb) && cb[j]:
			ops = append(ops, Op{Kind: KindAdd, A: i, B: j})
			j++
		default:
			ops = append(ops, Op{Kind: KindContext, A: i, B: j})
			i++
			j++
		}
	}
	return ops
}

// diffChangedLines returns, for each line of a and of b, whether a shortest edit script
// removes (a) or inserts (b) it. The lines left unchanged pair up in order and are equal.
func diffChangedLines(a, b []string) (ca, cb []bool) {
	ca, cb = make([]bool, len(a)), make([]bool, len(b))
	pre := commonPrefixLines(a, b)
	suf := commonSuffixLines(a[pre:], b[pre:])
	aEnd, bEnd := len(a)-suf, len(b)-suf
	markMinimalChanges(a[pre:aEnd], b[pre:bEnd], ca[pre:aEnd], cb[pre:bEnd])
	slideChangeRuns(a, ca, diffChangeGaps(cb))
	slideChangeRuns(b, cb, diffChangeGaps(ca))
	return ca, cb
}
