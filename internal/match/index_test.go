package match

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// indexFor indexes file (lines joined by LF) for hunks whose old lines are olds and
// whose anchors are anchors.
func indexFor(file string, olds [][]string, anchors ...string) *lineIndex {
	var hunks []testHunk
	for _, old := range olds {
		var h testHunk
		for _, l := range old {
			h.Lines = append(h.Lines, testLine{Kind: Context, Text: l})
		}
		hunks = append(hunks, h)
	}
	for _, a := range anchors {
		hunks = append(hunks, testHunk{Anchor: a})
	}
	return newLineIndex(lines.Split(file), hunksOf(hunks))
}

// matchSetOf is matches into a set of its own.
func (x *lineIndex) matchSetOf(old []string, p Pass, eofStart int) *matchSet {
	ms := new(matchSet)
	x.matches(ms, old, p, eofStart)
	return ms
}

func TestLevelPositions(t *testing.T) {
	x := indexFor("a\nb\na\n  a\nc\n", [][]string{{"a"}, {"c", "zzz"}})
	for _, tc := range []struct {
		line string
		want []int
	}{
		{"a", []int{0, 2}},
		{"c", []int{4}},
		{"zzz", nil},
	} {
		if diff := cmp.Diff(tc.want, x.find([]string{tc.line}, Exact, -1)); diff != "" {
			t.Errorf("Exact find(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
	// A looser pass finds the same wanted lines under its own normalisation.
	if diff := cmp.Diff([]int{0, 2, 3}, x.find([]string{"a"}, SurroundingWhitespace, -1)); diff != "" {
		t.Errorf("SurroundingWhitespace find(a) (-want +got):\n%s", diff)
	}
	// The index holds the positions of the loosest pass.
	if diff := cmp.Diff([]int32{0, 2, 3}, x.at(Punctuation).positions("a")); diff != "" {
		t.Errorf("Punctuation positions(a) (-want +got):\n%s", diff)
	}
}

// TestLevelFind checks that candidates are every start where all the lines agree,
// found from the rarest line whatever its place in the hunk.
func TestLevelFind(t *testing.T) {
	file := "x\nx\nrare\nx\nx\nrare\nx\n"
	for _, tc := range []struct {
		name string
		want []string
		eof  int
		got  []int
	}{
		{"common line alone", []string{"x"}, -1, []int{0, 1, 3, 4, 6}},
		{"rare line first", []string{"rare", "x"}, -1, []int{2, 5}},
		{"rare line last", []string{"x", "rare"}, -1, []int{1, 4}},
		{"rare line in the middle", []string{"x", "rare", "x"}, -1, []int{1, 4}},
		{"two before rare: only the second qualifies", []string{"x", "x", "rare", "x", "x"}, -1, []int{0}},
		{"rare line too near the start", []string{"x", "x", "x", "rare"}, -1, nil},
		{"line the file lacks", []string{"x", "absent"}, -1, nil},
		{"no agreement", []string{"rare", "rare"}, -1, nil},
		{"EOF start that matches", []string{"rare", "x"}, 5, []int{5}},
		{"EOF start that does not match", []string{"x", "x"}, 5, nil},
		{"no EOF start: anywhere", []string{"x"}, -1, []int{0, 1, 3, 4, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := indexFor(file, [][]string{tc.want})
			got := x.find(tc.want, Exact, tc.eof)
			if diff := cmp.Diff(tc.got, got); diff != "" {
				t.Errorf("find(%q, %d) (-want +got):\n%s", tc.want, tc.eof, diff)
			}
		})
	}
}

// TestLevelFindPerPass checks find at each rung on lines that differ only in what that
// rung ignores.
func TestLevelFindPerPass(t *testing.T) {
	file := "value := 1\nvalue := 1  \n  value := 1\n  value := \u201c1\u201d\n"
	want := []string{"value := 1"}
	folded := []string{`value := "1"`}
	x := indexFor(file, [][]string{want, folded})
	for _, tc := range []struct {
		pass Pass
		want []string
		got  []int
	}{
		{Exact, want, []int{0}},
		{TrailingWhitespace, want, []int{0, 1}},
		{SurroundingWhitespace, want, []int{0, 1, 2}},
		{Punctuation, want, []int{0, 1, 2}},
		{SurroundingWhitespace, folded, nil},
		{Punctuation, folded, []int{3}},
	} {
		got := x.find(tc.want, tc.pass, -1)
		if diff := cmp.Diff(tc.got, got); diff != "" {
			t.Errorf("%v: find(%q) (-want +got):\n%s", tc.pass, tc.want, diff)
		}
	}
}

// TestWithPrefix checks anchor lookups: every line starting with the anchor, in file
// order, with several anchors in one index (of different lengths, some shorter than
// the lookup key, some sharing first bytes) and at fuzzy passes.
func TestWithPrefix(t *testing.T) {
	file := strings.Join([]string{
		"func a() {",      // 0
		"func ab() {",     // 1
		"func b() {",      // 2
		"f",               // 3
		"fu",              // 4
		"  func a() {",    // 5
		"type T struct {", // 6
		"funky",           // 7
		"\u00abq\u00bb",   // 8
	}, "\n")
	anchors := []string{"func a", "f", "type", "func", "\u00abq", `"q"`}
	x := indexFor(file, nil, anchors...)
	for _, tc := range []struct {
		pass   Pass
		prefix string
		want   []int
	}{
		{Exact, "func a", []int{0, 1}},
		{Exact, "f", []int{0, 1, 2, 3, 4, 7}},
		{Exact, "func", []int{0, 1, 2}},
		{Exact, "type", []int{6}},
		{Exact, "\u00abq", []int{8}},
		{Exact, `"q"`, nil},
		{SurroundingWhitespace, "func a", []int{0, 1, 5}},
		{SurroundingWhitespace, "func", []int{0, 1, 2, 5}},
		{Punctuation, `"q"`, []int{8}},
	} {
		got := x.at(tc.pass).withPrefix(normalize[tc.pass](tc.prefix))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%v: withPrefix(%q) (-want +got):\n%s", tc.pass, tc.prefix, diff)
		}
	}
}

// TestWithPrefixLongAnchors checks anchors longer than the lookup key that share it:
// the lines are found by their whole prefix, not the key.
func TestWithPrefixLongAnchors(t *testing.T) {
	file := "function one\nfunction two\nfunction three\nfunctional\n"
	x := indexFor(file, nil, "function t", "function one")
	lv := x.at(Exact)
	for prefix, want := range map[string][]int{
		"function t":   {1, 2},
		"function one": {0},
	} {
		if diff := cmp.Diff(want, lv.withPrefix(prefix)); diff != "" {
			t.Errorf("withPrefix(%q) (-want +got):\n%s", prefix, diff)
		}
	}
}

// TestSeeSharedAsOnePass: a pass's index built on two goroutines, in pieces taken in
// turn, finds every wanted line at the positions, in file order, of one pass over the
// file, at the exact and the loosest pass, for texts of fewer lines than pieces and of
// many (M1, PERF5).
func TestSeeSharedAsOnePass(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	variants := []string{"}", "", "  x := 1", "\tx := 1 ", "// \u201cquoted\u201d \u2014 dash", `// "quoted" - dash`, "\u00a0y\u2026", " y..."}
	for _, n := range []int{0, 1, 5, 15, 16, 17, 500, sharedLines + 3} {
		var b strings.Builder
		for range n {
			b.WriteString(variants[rng.IntN(len(variants))])
			b.WriteString("\n")
		}
		x := indexFor(b.String(), [][]string{variants[:3], variants[3:6], variants[6:]})
		for _, p := range []Pass{Exact, Punctuation} {
			one := newLevel(x, p)
			for i := range x.t.Count() {
				one.see(i, x.t.Line(i))
			}
			shared := newLevel(x, p)
			shared.seeShared(x.t.Count())
			if diff := cmp.Diff(one.occ, shared.occ, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%d lines, %v: positions (-one pass +shared):\n%s", n, p, diff)
			}
		}
	}
}
