package match

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// A testHunk is a hunk as the tests write it, with the fields of the library's Hunk.
type testHunk struct {
	Anchor string
	Within []string
	Hint   int
	EOF    bool
	Lines  []testLine
}

// A testLine is one line of a testHunk.
type testLine struct {
	Kind Kind
	Text string
}

func (h *testHunk) Chain() []string {
	if h.Anchor == "" {
		return nil
	}
	return append(slices.Clip(h.Within), h.Anchor)
}

func (h *testHunk) Len() int                    { return len(h.Lines) }
func (h *testHunk) LineAt(i int) (Kind, string) { return h.Lines[i].Kind, h.Lines[i].Text }
func (h *testHunk) LineHint() int               { return h.Hint }
func (h *testHunk) AtEOF() bool                 { return h.EOF }

// hunksOf returns the hunks as the matcher reads them.
func hunksOf(hunks []testHunk) []Hunk {
	out := make([]Hunk, len(hunks))
	for i := range hunks {
		out[i] = &hunks[i]
	}
	return out
}

// TestHintTieBreakWork: PERF4, M7. Line hints over 200,000 identical lines are settled
// by binary search: each hunk verifies a handful of starts, not every candidate.
func TestHintTieBreakWork(t *testing.T) {
	const n, h = 200_000, 2000
	text := textlines.Split(strings.Repeat("}\n", n))
	var hunks []testHunk // "@@ N", " }", "-}", "+Xi", as a payload writes them
	for i := 1; i <= h; i++ {
		hunks = append(hunks, testHunk{Hint: i * (n / (h + 1)),
			Lines: []testLine{{Context, "}"}, {Remove, "}"}, {Add, fmt.Sprint("X", i)}}})
	}
	pl := New(text, hunksOf(hunks))
	for i := range hunks {
		got, merr := pl.Place(&hunks[i])
		if merr != nil {
			t.Fatalf("hunk %d: %+v", i+1, merr)
		}
		if want := hunks[i].Hint - 1; got.Start != want {
			t.Fatalf("hunk %d placed at %d, want %d (the hinted line)", i+1, got.Start, want)
		}
	}
	if per := pl.idx.verified / h; per > 16 {
		t.Errorf("%d starts verified per hunk, want a handful", per)
	}
}

func linesOf(old []string) []testLine {
	out := make([]testLine, len(old))
	for i, s := range old {
		out[i] = testLine{Kind: Context, Text: s}
	}
	return out
}

func abs(x int) int { return max(x, -x) }

// TestMissingLineVerifiesNothing: PERF4. A long hunk whose '-' line occurs nowhere, over
// a file of the hunk's context line repeated, has no start at all: no start is verified,
// at any pass, though every other line of it occurs everywhere (it once verified each
// start of the common line, file lines times hunk lines at each pass).
func TestMissingLineVerifiesNothing(t *testing.T) {
	text := textlines.Split(strings.Repeat("x\n", 20_000))
	h := testHunk{}
	for range 10_000 {
		h.Lines = append(h.Lines, testLine{Context, "x"})
	}
	h.Lines = append(h.Lines, testLine{Remove, "y"}, testLine{Add, "z"})
	pl := New(text, []Hunk{&h})
	if _, err := pl.Place(&h); err == nil || err.Reason != NotFound {
		t.Fatalf("miss %+v, want NotFound", err)
	}
	if pl.idx.verified != 0 {
		t.Errorf("%d starts verified for a hunk with a line the file lacks", pl.idx.verified)
	}
}

// TestUniqueHunkVerifiedOnce: PERF5, M2. A hunk whose lines occur at one start has that
// start verified once, though the pass and the tie-breaks ask about it several times
// (the pass for any start below the anchor, then for a second start, then for the one).
func TestUniqueHunkVerifiedOnce(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "func f%d() {\n\treturn %d\n}\n\n", i, i)
	}
	var hunks []testHunk
	for i := 0; i < 2000; i += 10 {
		hunks = append(hunks, testHunk{Lines: []testLine{{Context, fmt.Sprintf("func f%d() {", i)},
			{Remove, fmt.Sprintf("\treturn %d", i)}, {Add, "\treturn 0"}, {Context, "}"}}})
	}
	_, pl := Index(b.String(), hunksOf(hunks), "f.go")
	for i := range hunks {
		got, merr := pl.Place(&hunks[i])
		if merr != nil || got.Start != 40*i {
			t.Fatalf("hunk %d: placed at %d (%+v), want %d", i+1, got.Start, merr, 40*i)
		}
	}
	if pl.idx.verified != len(hunks) {
		t.Errorf("%d starts verified for %d hunks placed at one start each, want one each", pl.idx.verified, len(hunks))
	}
}
