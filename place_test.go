package applypatch

import (
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/google/go-cmp/cmp"
)

// A placeCase is one matching case, in the manner of x/tools' difftest: a baseline
// file, the body of one Update section (as a payload has it), where each hunk lands or
// why it cannot, and the file after every hunk is applied. The same table drives
// TestPlace, seeds FuzzResolve and FuzzParse, and documents the rules of SPEC M.
type placeCase struct {
	name  string
	file  string
	body  string
	want  []landing
	after string // the file with every hunk applied; checked when every hunk lands
}

// A landing is where one hunk lands (line, n, pass, trimmed) or why it cannot (err and
// cands, the candidate lines of an ambiguity, or where the lines of an AboveAnchor hunk
// occur).
type landing struct {
	line    int // 1-based first line covered; for '+' lines only, the line they go before
	n       int // lines covered
	pass    match.Pass
	trimmed int
	err     match.Reason
	cands   []int
}

// at is a hunk landing exactly at line covering n lines.
func at(line, n int) landing { return landing{line: line, n: n} }

// fuzzy is a hunk landing at line covering n lines by pass p.
func fuzzy(line, n int, p match.Pass) landing { return landing{line: line, n: n, pass: p} }

// fails is a hunk rejected for reason r, with candidate lines cands.
func fails(r match.Reason, cands ...int) landing { return landing{err: r, cands: cands} }

var placeCases = []placeCase{
	// M1: the ladder, strictest first.
	{name: "exact", file: "a\nb\nc\n", body: "@@\n a\n-b\n+B\n",
		want: []landing{at(1, 2)}, after: "a\nB\nc\n"},
	{name: "trailing whitespace", file: "a \nb\t\nc\n", body: "@@\n a\n-b\n+B\n",
		want: []landing{fuzzy(1, 2, match.TrailingWhitespace)}, after: "a \nB\nc\n"},
	{name: "surrounding whitespace", file: "  a\n\tb\nc\n", body: "@@\n a\n-b\n+B\n",
		want: []landing{fuzzy(1, 2, match.SurroundingWhitespace)}, after: "  a\nB\nc\n"},
	{name: "typographic punctuation", file: "\u201ca\u201d \u2014 b\u2026\nnext\n", body: "@@\n \"a\" - b...\n-next\n+NEXT\n",
		want: []landing{fuzzy(1, 2, match.Punctuation)}, after: "\u201ca\u201d \u2014 b\u2026\nNEXT\n"},
	{name: "exact wins over a fuzzy match elsewhere", file: "x  \nx\n", body: "@@\n-x\n+y\n",
		want: []landing{at(2, 1)}, after: "x  \ny\n"},
	{name: "pass decided per hunk", file: "a \nb\n", body: "@@\n-a\n+A\n@@\n-b\n+B\n",
		want: []landing{fuzzy(1, 1, match.TrailingWhitespace), at(2, 1)}, after: "A\nB\n"},

	// M2: every pass needs a unique match.
	{name: "ambiguous exact", file: "x\ny\nx\ny\n", body: "@@\n-x\n y\n",
		want: []landing{fails(match.Ambiguous, 1, 3)}},
	{name: "ambiguous at a fuzzy pass", file: "x \nm\nx\t\n", body: "@@\n-x\n+X\n",
		want: []landing{fails(match.Ambiguous, 1, 3)}},
	{name: "not found", file: "a\nb\n", body: "@@\n-c\n+C\n",
		want: []landing{fails(match.NotFound)}},
	{name: "lines present but not together", file: "a\nb\nc\n", body: "@@\n a\n-c\n+C\n",
		want: []landing{fails(match.NotFound)}},

	// M3: the order cursor.
	{name: "cursor settles a tie", file: "x\na\nx\n", body: "@@\n-a\n+A\n@@\n-x\n+X\n",
		want: []landing{at(2, 1), at(3, 1)}, after: "x\nA\nX\n"},
	{name: "cursor at the end of the previous hunk", file: "x\nx\nx\n", body: "@@\n-x\n x\n@@\n-x\n+y\n",
		want: []landing{fails(match.Ambiguous, 1, 2), fails(match.Ambiguous, 1, 2, 3)}},
	{name: "unique hunk above the cursor still lands", file: "a\nb\n", body: "@@\n-b\n+B\n@@\n-a\n+A\n",
		want: []landing{at(2, 1), at(1, 1)}, after: "A\nB\n"},
	{name: "locator moves the cursor", file: "x\nmark\nx\n", body: "@@\n mark\n@@\n-x\n+X\n",
		want: []landing{at(2, 1), at(3, 1)}, after: "x\nmark\nX\n"},
	{name: "failed hunk leaves the cursor", file: "x\nx\n", body: "@@\n-nope\n+N\n@@\n-x\n+X\n",
		want: []landing{fails(match.NotFound), fails(match.Ambiguous, 1, 2)}},
	{name: "cursor leaves several", file: "a\nx\nx\n", body: "@@\n-a\n+A\n@@\n-x\n+X\n",
		want: []landing{at(1, 1), fails(match.Ambiguous, 2, 3)}},

	// M4: End of File.
	{name: "end of file prefers the end", file: "}\n}\n", body: "@@\n-}\n+};\n*** End of File\n",
		want: []landing{at(2, 1)}, after: "}\n};\n"},
	{name: "end of file retried anywhere", file: "a\nb\nc\n", body: "@@\n-a\n+A\n*** End of File\n",
		want: []landing{at(1, 1)}, after: "A\nb\nc\n"},
	{name: "end of file fuzzy at the end beats exact elsewhere", file: "x\ny\nx \n", body: "@@\n-x\n+X\n*** End of File\n",
		want: []landing{fuzzy(3, 1, match.TrailingWhitespace)}, after: "x\ny\nX\n"},
	{name: "end of file longer than the file", file: "a\n", body: "@@\n a\n-b\n*** End of File\n",
		want: []landing{fails(match.NotFound)}},
	{name: "end of file retried anywhere stays unique", file: "x\nx\ny\n", body: "@@\n-x\n+X\n*** End of File\n",
		want: []landing{fails(match.Ambiguous, 1, 2)}},

	// M6: anchors.
	{name: "anchor by prefix", file: "func a() {\n\tx\n}\nfunc b() {\n\tx\n}\n", body: "@@ func b\n-\tx\n+\ty\n",
		want: []landing{at(5, 1)}, after: "func a() {\n\tx\n}\nfunc b() {\n\ty\n}\n"},
	{name: "anchor ambiguous", file: "func a\nx\nfunc b\nx\n", body: "@@ func\n-x\n+y\n",
		want: []landing{fails(match.AnchorAmbiguous, 1, 3)}},
	{name: "anchor not found", file: "a\nx\n", body: "@@ b\n-x\n+y\n",
		want: []landing{fails(match.AnchorNotFound)}},
	{name: "hunk only above its anchor", file: "x\nmark\ny\n", body: "@@ mark\n-x\n+X\n",
		want: []landing{fails(match.AboveAnchor, 1)}},
	{name: "anchor is not its own hunk line", file: "mark\nx\n", body: "@@ mark\n mark\n-x\n+X\n",
		want: []landing{fails(match.AboveAnchor, 1)}},
	{name: "a hunk repeating its anchor's line, with a copy below, is refused (M6)",
		file: "class A:\n    def foo(self):\n        return 1\n    class Inner:\n        def foo(self):\n            return 1\n",
		body: "@@     def foo(self):\n     def foo(self):\n-        return 1\n+        return 2\n",
		want: []landing{fails(match.OnAnchor, 2)}},
	{name: "a hunk repeating the last anchor of a chain, with a copy below, is refused (M6, P8)",
		file: "class A:\n  def f():\n    x\nclass B:\n  def f():\n    x\n", body: "@@ class A:\n@@   def f():\n   def f():\n-    x\n+    X\n",
		want: []landing{fails(match.OnAnchor, 2)}},
	{name: "a hunk repeating the line of an anchor naming two settles which (M6)",
		file: "def f():\n  x\ndef f():\n  z\n", body: "@@ def f():\n def f():\n-  z\n+  Z\n",
		want: []landing{at(3, 2)}, after: "def f():\n  x\ndef f():\n  Z\n"},
	{name: "a hunk starting on the last line of the locator before it starts there (M11)",
		file: "class A:\n  def f():\n    x\nclass B:\n  def f():\n    x\n", body: "@@\n class A:\n   def f():\n@@\n   def f():\n-    x\n+    X\n",
		want: []landing{at(1, 2), at(2, 2)}, after: "class A:\n  def f():\n    X\nclass B:\n  def f():\n    x\n"},
	{name: "after a locator, its last line loosely is no match over one exactly below (M11, M1)",
		file: "z = 0\nif a:\n  x = 1\nif a:\n    x = 1\n", body: "@@\n z = 0\n if a:\n@@\n if a:\n-    x = 1\n+    x = 2\n",
		want: []landing{at(1, 2), at(4, 2)}, after: "z = 0\nif a:\n  x = 1\nif a:\n    x = 2\n"},
	{name: "the line after an anchor that opens nothing wins (M6)", file: "mark\nx\nx\n", body: "@@ mark\n-x\n+X\n",
		want: []landing{at(2, 1)}, after: "mark\nX\nx\n"},
	{name: "an INI section's first key (M6)", file: "[one]\nk = 1\n[two]\nk = 1\n[three]\nk = 1\n", body: "@@ [two]\n-k = 1\n+k = 2\n",
		want: []landing{at(4, 1)}, after: "[one]\nk = 1\n[two]\nk = 2\n[three]\nk = 1\n"},
	{name: "below an anchor that opens nothing, a tie past its next line stays", file: "mark\ny\nx\nx\n", body: "@@ mark\n-x\n+X\n",
		want: []landing{fails(match.Ambiguous, 3, 4)}},
	{name: "anchor block wins (M6)", file: "def a():\n  x\ndef b():\n  x\n  y\n", body: "@@ def a\n-  x\n+  X\n",
		want: []landing{at(2, 1)}, after: "def a():\n  X\ndef b():\n  x\n  y\n"},
	{name: "anchor naming two lines settled by the block (M6)", file: "def f():\n  x\ndef f():\n  y\n", body: "@@ def f\n-  y\n+  Y\n",
		want: []landing{at(4, 1)}, after: "def f():\n  x\ndef f():\n  Y\n"},
	{name: "two blocks hold the hunk (M6)", file: "def f():\n  x\ndef f():\n  x\n", body: "@@ def f\n-  x\n+  X\n",
		want: []landing{fails(match.AnchorAmbiguous, 1, 3)}},
	{name: "chain of anchors (P8)", file: "class A:\n  def f():\n    x\nclass B:\n  def f():\n    x\n", body: "@@ class B\n@@   def f\n-    x\n+    X\n",
		want: []landing{at(6, 1)}, after: "class A:\n  def f():\n    x\nclass B:\n  def f():\n    X\n"},
	{name: "chain's second anchor missing (P8)", file: "class A:\n  def g():\n    x\nclass B:\n  def f():\n    x\n", body: "@@ class B\n@@   def g\n-    x\n+    X\n",
		want: []landing{fails(match.AnchorNotFound, 4)}},
	{name: "anchor settled by the cursor", file: "case\nfirst\nrun\ncase\nrun\n", body: "@@\n-first\n+FIRST\n@@ case\n-run\n+RUN\n",
		want: []landing{at(2, 1), at(5, 1)}, after: "case\nFIRST\nrun\ncase\nRUN\n"},
	{name: "anchor found by a fuzzy pass", file: "  func a() {\nx\n", body: "@@ func a\n-x\n+y\n",
		want: []landing{fuzzy(2, 1, match.SurroundingWhitespace)}, after: "  func a() {\ny\n"},
	{name: "anchor keeps its indentation", file: "def run():\n  x\nclass C:\n  def run(self):\n  x\n", body: "@@   def run\n-  x\n+  y\n",
		want: []landing{at(5, 1)}, after: "def run():\n  x\nclass C:\n  def run(self):\n  y\n"},
	{name: "blank anchor names no line", file: "foo bar\nx\n", body: "@@ \u00a0\n-x\n+y\n@@ foo\n-x\n+z\n",
		want: []landing{fails(match.AnchorNotFound), at(2, 1)}},

	// M7: line hints.
	{name: "hint breaks a tie", file: "x\na\nx\nb\nc\nx\n", body: "@@ 4\n-x\n+X\n",
		want: []landing{at(3, 1)}, after: "x\na\nX\nb\nc\nx\n"},
	{name: "hint equidistant", file: "x\na\nx\n", body: "@@ 2\n-x\n+X\n",
		want: []landing{fails(match.Ambiguous, 1, 3)}},
	{name: "stale hint ignored", file: "a\nb\nc\n", body: "@@ 40\n-b\n+B\n",
		want: []landing{at(2, 1)}, after: "a\nB\nc\n"},
	{name: "hint after the cursor", file: "x\nm\nx\nx\n", body: "@@\n-m\n+M\n@@ 1\n-x\n+X\n",
		want: []landing{at(2, 1), at(3, 1)}, after: "x\nM\nX\nx\n"},

	// P10: pure additions.
	{name: "append at end", file: "a\nb", body: "@@\n+c\n",
		want: []landing{at(3, 0)}, after: "a\nb\nc\n"},
	{name: "append to an empty file", file: "", body: "@@\n+a\n",
		want: []landing{at(1, 0)}, after: "a\n"},
	{name: "insert below anchor", file: "import (\n\t\"fmt\"\n)\n", body: "@@ import (\n+\t\"errors\"\n",
		want: []landing{at(2, 0)}, after: "import (\n\t\"errors\"\n\t\"fmt\"\n)\n"},
	{name: "insert before hint line", file: "a\nb\n", body: "@@ 2\n+x\n",
		want: []landing{at(2, 0)}, after: "a\nx\nb\n"},
	{name: "insert hint one past the end", file: "a\nb\n", body: "@@ 3\n+c\n",
		want: []landing{at(3, 0)}, after: "a\nb\nc\n"},
	{name: "insert hint past the end", file: "a\nb\n", body: "@@ 4\n+c\n",
		want: []landing{fails(match.HintPastEnd, 2)}},

	// Trailing blank context lines the file lacks.
	{name: "trailing blank context trimmed", file: "a\nb\n", body: "@@\n a\n-b\n+B\n \n",
		want: []landing{{line: 1, n: 2, trimmed: 1}}, after: "a\nB\n"},
	{name: "trailing blank context present", file: "a\nb\n\nc\n", body: "@@\n a\n-b\n+B\n \n",
		want: []landing{at(1, 3)}, after: "a\nB\n\nc\n"},
}

// updateBody wraps the body of an Update section for file f into a payload.
func updateBody(body string) string {
	return "*** Begin Patch\n*** Update File: f\n" + body + "*** End Patch\n"
}

// placeAll places every hunk as Resolve does and returns what happened to each.
func placeAll(t *lines.Text, hunks []Hunk) []landing {
	pl := newPlacer(t, hunks)
	var out []landing
	for i := range hunks {
		got, miss := pl.Place(hunks[i].view())
		if miss != nil {
			out = append(out, landing{err: miss.Reason, cands: lineFacts(matchError(miss))})
			continue
		}
		out = append(out, landing{line: got.Line(), n: got.Len, pass: got.Pass, trimmed: got.Trimmed})
	}
	return out
}

// applyAll applies every changing hunk at its placement.
func applyAll(t *lines.Text, hunks []Hunk) (string, error) {
	pl := newPlacer(t, hunks)
	var sel []placedHunk
	num := 0
	for i := range hunks {
		got, miss := pl.Place(hunks[i].view())
		if miss != nil {
			return "", matchError(miss)
		}
		if !hunks[i].isLocator() {
			num++
			sel = append(sel, placedHunk{&hunkChange{Hunk: hunks[i], Place: got, Selected: true}, num})
		}
	}
	sortPlaced(sel)
	s, err := applyHunks(t, sel)
	if err != nil {
		return "", err
	}
	return string(s), nil
}

func sortPlaced(sel []placedHunk) {
	c := &change{}
	for _, h := range sel {
		c.Hunks = append(c.Hunks, h.hunkChange)
	}
	copy(sel, c.selectedHunks())
}

func TestPlace(t *testing.T) {
	for _, tc := range placeCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(updateBody(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			hunks := p.Ops[0].Hunks
			got := placeAll(lines.Split(tc.file), hunks)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(landing{})); diff != "" {
				t.Errorf("landings (-want +got):\n%s", diff)
			}
			if tc.after == "" {
				return
			}
			after, err := applyAll(lines.Split(tc.file), hunks)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if after != tc.after {
				t.Errorf("after:\n%q\nwant:\n%q", after, tc.after)
			}
		})
	}
}

// TestPlaceCasesComplete checks that each case says what happens to every hunk.
func TestPlaceCasesComplete(t *testing.T) {
	for _, tc := range placeCases {
		p, err := Parse(updateBody(tc.body))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if n := len(p.Ops[0].Hunks); n != len(tc.want) {
			t.Errorf("%s: %d hunks, %d landings", tc.name, n, len(tc.want))
		}
		lands := true
		for _, w := range tc.want {
			lands = lands && w.err == 0
		}
		if lands != (tc.after != "") {
			t.Errorf("%s: every hunk lands = %v, but after is %q", tc.name, lands, tc.after)
		}
	}
}

// lineFacts returns an error's file lines the way the test tables list them: the
// candidates, [FileLines] for a hint past the end, [Other Start End] for an overlap.
func lineFacts(e *MatchError) []int {
	switch {
	case e.why == match.HintPastEnd:
		return []int{e.FileLines}
	case e.Reason == MatchOverlap:
		return []int{e.Other, e.Start, e.End}
	}
	return e.Lines
}
