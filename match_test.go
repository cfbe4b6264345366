package applypatch

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"unicode"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/google/go-cmp/cmp"
)

// indexFor indexes file (lines joined by LF) for hunks whose old lines are olds and
// whose anchors are anchors.
func indexFor(file string, olds [][]string, anchors ...string) *lineIndex {
	var hunks []Hunk
	for _, old := range olds {
		var h Hunk
		for _, l := range old {
			h.Lines = append(h.Lines, Line{Kind: LineContext, Text: l})
		}
		hunks = append(hunks, h)
	}
	for _, a := range anchors {
		hunks = append(hunks, Hunk{Anchor: a})
	}
	return newLineIndex(lines.Split(file), hunks)
}

// matchSetOf is matches into a set of its own.
func (x *lineIndex) matchSetOf(old []string, p matchPass, eofStart int) *matchSet {
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
		if diff := cmp.Diff(tc.want, x.find([]string{tc.line}, passExact, -1)); diff != "" {
			t.Errorf("Exact find(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
	// A looser pass finds the same wanted lines under its own normalisation.
	if diff := cmp.Diff([]int{0, 2, 3}, x.find([]string{"a"}, passSurroundingWhitespace, -1)); diff != "" {
		t.Errorf("SurroundingWhitespace find(a) (-want +got):\n%s", diff)
	}
	// The index holds the positions of the loosest pass.
	if diff := cmp.Diff([]int32{0, 2, 3}, x.at(passPunctuation).positions("a")); diff != "" {
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
			got := x.find(tc.want, passExact, tc.eof)
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
		pass matchPass
		want []string
		got  []int
	}{
		{passExact, want, []int{0}},
		{passTrailingWhitespace, want, []int{0, 1}},
		{passSurroundingWhitespace, want, []int{0, 1, 2}},
		{passPunctuation, want, []int{0, 1, 2}},
		{passSurroundingWhitespace, folded, nil},
		{passPunctuation, folded, []int{3}},
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
		pass   matchPass
		prefix string
		want   []int
	}{
		{passExact, "func a", []int{0, 1}},
		{passExact, "f", []int{0, 1, 2, 3, 4, 7}},
		{passExact, "func", []int{0, 1, 2}},
		{passExact, "type", []int{6}},
		{passExact, "\u00abq", []int{8}},
		{passExact, `"q"`, nil},
		{passSurroundingWhitespace, "func a", []int{0, 1, 5}},
		{passSurroundingWhitespace, "func", []int{0, 1, 2, 5}},
		{passPunctuation, `"q"`, []int{8}},
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
	lv := x.at(passExact)
	for prefix, want := range map[string][]int{
		"function t":   {1, 2},
		"function one": {0},
	} {
		if diff := cmp.Diff(want, lv.withPrefix(prefix)); diff != "" {
			t.Errorf("withPrefix(%q) (-want +got):\n%s", prefix, diff)
		}
	}
}

// TestNormalize checks each rung of the ladder (M1).
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [len(passes)]string
	}{
		{"plain", [4]string{"plain", "plain", "plain", "plain"}},
		{"  indented\t ", [4]string{"  indented\t ", "  indented", "indented", "indented"}},
		{"\u00a0nbsp\u00a0", [4]string{"\u00a0nbsp\u00a0", "\u00a0nbsp", "nbsp", "nbsp"}},
		{"a\u2014b \u201cc\u201d", [4]string{"a\u2014b \u201cc\u201d", "a\u2014b \u201cc\u201d", "a\u2014b \u201cc\u201d", `a-b "c"`}},
		{"x\u2003=\u20031", [4]string{"x\u2003=\u20031", "x\u2003=\u20031", "x\u2003=\u20031", "x = 1"}},
		{"\u3000", [4]string{"\u3000", "", "", ""}},
		{"wait\u2026 ", [4]string{"wait\u2026 ", "wait\u2026", "wait\u2026", "wait..."}},
		{"", [4]string{"", "", "", ""}},
	} {
		for _, p := range passes {
			if got := normalize[p](tc.in); got != tc.want[p] {
				t.Errorf("%v: normalize(%q) = %q, want %q", p, tc.in, got, tc.want[p])
			}
		}
	}
}

// specFold is TypographicFold as SPEC M1 lists it, range by range.
func specFold() map[rune]string {
	m := map[rune]string{}
	span := func(lo, hi rune, to string) {
		for r := lo; r <= hi; r++ {
			m[r] = to
		}
	}
	span(0x2010, 0x2015, "-")
	span(0x2212, 0x2212, "-")
	span(0x2018, 0x201B, "'")
	span(0x201C, 0x201F, `"`)
	span(0x2032, 0x2032, "'")
	span(0x2033, 0x2033, `"`)
	span(0x00AB, 0x00AB, `"`)
	span(0x00BB, 0x00BB, `"`)
	span(0x2026, 0x2026, "...")
	span(0x00A0, 0x00A0, " ")
	span(0x2000, 0x200A, " ")
	span(0x202F, 0x202F, " ")
	span(0x205F, 0x205F, " ")
	span(0x3000, 0x3000, " ")
	return m
}

// TestTypographicFold checks the table against SPEC M1 and that the Punctuation pass
// folds every entry inside a line, and nothing else.
func TestTypographicFold(t *testing.T) {
	if diff := cmp.Diff(specFold(), maps.Clone(typographicFold)); diff != "" {
		t.Fatalf("TypographicFold differs from SPEC M1 (-spec +table):\n%s", diff)
	}
	for r, to := range maps.Clone(typographicFold) {
		t.Run(fmt.Sprintf("U+%04X", r), func(t *testing.T) {
			line := "a" + string(r) + "b"
			if got, want := fold(line), "a"+to+"b"; got != want {
				t.Errorf("fold(%q) = %q, want %q", line, got, want)
			}
			if got, want := normalize[passPunctuation](line), "a"+to+"b"; got != want {
				t.Errorf("Punctuation normalize(%q) = %q, want %q", line, got, want)
			}
			if normalize[passSurroundingWhitespace](line) != line {
				t.Errorf("a pass before Punctuation folded %q", line)
			}
			x := indexFor(line+"\n", [][]string{{"a" + to + "b"}})
			if got := x.at(passPunctuation).find([]string{"a" + to + "b"}, -1); !cmp.Equal(got, []int{0}) {
				t.Errorf("Punctuation pass does not find %q in %q: %v", "a"+to+"b", line, got)
			}
		})
	}
	// Characters outside the table are kept, even look-alikes.
	for _, s := range []string{"\u2016", "\u2034", "\u2027", "\u200B", "\u00B4", "\u2039"} {
		if got := fold(s); got != s {
			t.Errorf("fold(%q) = %q; it is not in the table and must be kept", s, got)
		}
	}
}

// TestFoldKeepsASCII checks that folding leaves text without table characters alone
// and never folds a character into one the table maps from.
func TestFoldKeepsASCII(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		if s := string(r); fold(s) != s {
			t.Errorf("fold(%q) = %q", s, fold(s))
		}
	}
	for _, to := range maps.Clone(typographicFold) {
		for _, r := range to {
			if r >= 0x80 || unicode.IsControl(r) {
				t.Errorf("fold target %q is not printable ASCII", to)
			}
		}
	}
}

func TestPassString(t *testing.T) {
	want := map[matchPass]string{
		passExact:                 "exact",
		passTrailingWhitespace:    "ignoring trailing whitespace",
		passSurroundingWhitespace: "ignoring surrounding whitespace",
		passPunctuation:           "normalizing typographic punctuation",
	}
	for p, s := range want {
		if p.String() != s {
			t.Errorf("Pass(%d).String() = %q, want %q", p, p.String(), s)
		}
		if p.fuzzy() != (p != passExact) {
			t.Errorf("%v.Fuzzy() = %v", p, p.fuzzy())
		}
	}
}
