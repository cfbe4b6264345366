package match

import (
	"fmt"
	"maps"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

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
			if got, want := normalize[Punctuation](line), "a"+to+"b"; got != want {
				t.Errorf("Punctuation normalize(%q) = %q, want %q", line, got, want)
			}
			if normalize[SurroundingWhitespace](line) != line {
				t.Errorf("a pass before Punctuation folded %q", line)
			}
			x := indexFor(line+"\n", [][]string{{"a" + to + "b"}})
			if got := x.at(Punctuation).find([]string{"a" + to + "b"}, -1); !cmp.Equal(got, []int{0}) {
				t.Errorf("Punctuation pass does not find %q in %q: %v", "a"+to+"b", line, got)
			}
		})
	}
	for r := range typographicFold {
		if r < foldLow || r > foldHigh {
			t.Errorf("U+%04X lies outside foldLow..foldHigh, where fold never looks", r)
		}
	}
	// Characters outside the table are kept, even look-alikes, other non-ASCII text and
	// bytes that are not UTF-8.
	for _, s := range []string{"\u2016", "\u2034", "\u2027", "\u200B", "\u00B4", "\u2039", "\u4e2d", "caf\u00e9", "\xff\xfe"} {
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
	want := map[Pass]string{
		Exact:                 "exact",
		TrailingWhitespace:    "ignoring trailing whitespace",
		SurroundingWhitespace: "ignoring surrounding whitespace",
		Punctuation:           "normalizing typographic punctuation",
	}
	for p, s := range want {
		if p.String() != s {
			t.Errorf("Pass(%d).String() = %q, want %q", p, p.String(), s)
		}
		if p.Fuzzy() != (p != Exact) {
			t.Errorf("%v.Fuzzy() = %v", p, p.Fuzzy())
		}
	}
}
