package applypatch

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseChain checks that "@@" lines in a row are one hunk (P8): anchors join the
// chain outermost first, a line hint joins it; a bare "@@" after the chain ends it
// (P15), and a bare "@@" before one only opens the hunk the chain names, as the OpenAI
// Agents SDKs read it; two bare "@@" in a row, an "@@" line after the chain ended, and a
// second hint are errors.
func TestParseChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []string
		want Hunk
		err  string
	}{
		{"two anchors", []string{"@@ class A", "@@     def f"}, Hunk{Within: []string{"class A"}, Anchor: "    def f"}, ""},
		{"three anchors", []string{"@@ a", "@@ b", "@@ c"}, Hunk{Within: []string{"a", "b"}, Anchor: "c"}, ""},
		{"bare first", []string{"@@", "@@ def f"}, Hunk{Anchor: "def f"}, ""},
		{"bare first, then a chain ended", []string{"@@", "@@ class A", "@@ def f", "@@"}, Hunk{Within: []string{"class A"}, Anchor: "def f"}, ""},
		{"bare first, then a hint", []string{"@@", "@@ 12"}, Hunk{Hint: 12}, ""},
		{"two bare first", []string{"@@", "@@", "@@ def f"}, Hunk{}, "the previous '@@' hunk has no lines"},
		{"bare ends the chain", []string{"@@ def f", "@@"}, Hunk{Anchor: "def f"}, ""},
		{"bare ends a longer chain", []string{"@@ class A", "@@ def f", "@@"}, Hunk{Within: []string{"class A"}, Anchor: "def f"}, ""},
		{"bare ends a hint", []string{"@@ 12", "@@"}, Hunk{Hint: 12}, ""},
		{"two bare after a chain", []string{"@@ def f", "@@", "@@"}, Hunk{}, "the previous '@@' hunk has no lines"},
		{"anchor after the chain ended", []string{"@@ def f", "@@", "@@ def g"}, Hunk{}, "the previous '@@' hunk has no lines"},
		{"hint in the chain", []string{"@@ def f", "@@ 12"}, Hunk{Anchor: "def f", Hint: 12}, ""},
		{"two hints", []string{"@@ 3", "@@ 12"}, Hunk{}, "already has the line hint '@@ 3'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "*** Begin Patch\n*** Update File: a.py\n" + strings.Join(tc.head, "\n") + "\n-x\n+y\n*** End Patch\n"
			p, err := Parse(text)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse = %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Lines = []Line{{LineRemove, "x"}, {LineAdd, "y"}}
			if diff := cmp.Diff(tc.want, p.Ops[0].Hunks[0], ignoreLines); diff != "" {
				t.Errorf("hunk (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChainLengthBounded: P8, PERF4. A hunk's chain names at most 16 anchors: placing a
// chain costs its anchors times the lines each names, and 2,000 '@@ {' over a file of
// braces once took minutes. Sixteen parse; seventeen are refused with the line.
func TestChainLengthBounded(t *testing.T) {
	chain := func(n int) string {
		return "*** Begin Patch\n*** Update File: a.c\n" + strings.Repeat("@@ {\n", n) + "-x\n+y\n*** End Patch\n"
	}
	if _, err := Parse(chain(16)); err != nil {
		t.Errorf("a chain of 16 anchors: %v", err)
	}
	_, err := Parse(chain(17))
	if err == nil || !strings.Contains(err.Error(), "line 19") || !strings.Contains(err.Error(), "more than 16 anchors") {
		t.Errorf("a chain of 17 anchors: %v", err)
	}
	h := Hunk{Anchor: "{", Within: slices.Repeat([]string{"{"}, 16), Lines: []Line{{Kind: LineRemove, Text: "x"}}}
	if msg := hunkProblem(&h); !strings.Contains(msg, "17 anchors") {
		t.Errorf("a built hunk with 17 anchors: %q", msg)
	}
}
