package match

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// nearFile is a file of distinct, code-like lines.
func nearFile(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("\tvalue%d := compute(input%d, offset%d)", i, i*7, i*13)
	}
	return lines
}

// typo changes one character of every line.
func typo(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(l, "compute", "compite", 1)
	}
	return out
}

// TestNearMissBySimilarity checks that the closest region is found by line similarity
// (M9): a hunk with a one-character typo on every line points at its place, also when
// one of its lines occurs exactly elsewhere.
func TestNearMissBySimilarity(t *testing.T) {
	lines := nearFile(400)
	lines[20] = "\treturn nil"
	tests := []struct {
		name string
		old  []string
		want int // 1-based start
	}{
		{"typo on every line", typo(lines[200:206]), 201},
		{"one line also elsewhere", append(typo(lines[300:305]), "\treturn nil"), 301},
		{"shifted by a missing line", typo(append(lines[100:103:103], lines[104:108]...)), 101},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := New(textlines.Split(strings.Join(lines, "\n")+"\n"), nil)
			nm := pl.nearMiss(tt.old)
			if nm == nil || nm.Start != tt.want {
				t.Fatalf("nearMiss = %+v, want start %d", nm, tt.want)
			}
		})
	}
}

// M9: a line of one word with a typo inside shares no whole word with the file, yet the
// closest region is its line, and a character that does not print is shown by its code.
func TestNearMissOneWordTypo(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"first line\nalphaXbeta\nlast line\n", "+      2  alphaXbeta"},
		{"first line\nalpha\u200bbeta\nlast line\n", "+      2  alpha<U+200B>beta"},
	} {
		pl := New(textlines.Split(tc.file), nil)
		nm := pl.nearMiss([]string{"alphabeta"})
		if nm == nil || nm.Start != 2 || !strings.Contains(nm.Diff, tc.want) {
			t.Errorf("nearMiss in %q = %+v, want line 2 shown as %q", tc.file, nm, tc.want)
		}
	}
}

// M9: where the file has lines the hunk left out, the view shows them as the file's and
// the hunk's last lines as found, not as missing: the file's side runs past the hunk's
// length, and file lines past the hunk's end are cut.
func TestNearMissShowsLinesTheHunkLeftOut(t *testing.T) {
	file := "/**\n * A.\n * B.\n * C.\n */\nfunction layout(items) {\n\treturn items;\n}\nfunction next() {\n}\n"
	pl := New(textlines.Split(file), nil)
	nm := pl.nearMiss([]string{"/**", " * A.", " */", "function layout(items) {", "\treturn items;", "}"})
	if nm == nil || nm.Start != 1 || nm.Agree != 6 {
		t.Fatalf("nearMiss = %+v, want line 1 with all 6 lines found", nm)
	}
	for _, want := range []string{"+      3   * B.", "       7  \treturn items;", "       8  }"} {
		if !strings.Contains(nm.Diff, want) {
			t.Errorf("the view lacks %q:\n%s", want, nm.Diff)
		}
	}
	if strings.Contains(nm.Diff, "next") || strings.Contains(nm.Diff, "- ") {
		t.Errorf("the view shows lines past the hunk, or lines as missing:\n%s", nm.Diff)
	}
}

// TestNearMissBudget checks the near miss's cost bound (M9, PERF4) by what it yields: a
// hunk of 20,000 lines that misses gives a text of a few KiB that compares at most
// nearMissCompare lines.
func TestNearMissBudget(t *testing.T) {
	lines := nearFile(20000)
	old := typo(lines)
	pl := New(textlines.Split(strings.Join(lines, "\n")+"\n"), nil)
	nm := pl.nearMiss(old)
	if nm == nil || nm.Start != 1 {
		t.Fatalf("nearMiss = %+v, want start 1", nm)
	}
	if nm.Of != nearMissCompare || len(nm.Diff) > 6<<10 {
		t.Errorf("compared %d lines, diff of %d bytes; want %d lines, at most 6 KiB", nm.Of, len(nm.Diff), nearMissCompare)
	}
	if n := strings.Count(nm.Diff, "\n") + 1; n > nearMissShown+2 {
		t.Errorf("diff shows %d lines, want at most %d", n, nearMissShown+2)
	}
}

// BenchmarkNearMiss measures the near-miss search (M9, PERF4) for a hunk as long as its
// file whose every line has a typo, at two sizes, so the growth shows.
func BenchmarkNearMiss(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			lines := nearFile(n)
			old := typo(lines)
			t := textlines.Split(strings.Join(lines, "\n") + "\n")
			for b.Loop() {
				New(t, nil).nearMiss(old)
			}
		})
	}
}

// TestAppliedAtWhereverTheAddedLinesLie: M8. A hunk found applied already is told so
// whether its first new line is a context line or an added one, and one with no context
// line at all too; a hunk whose new side is not in the text is not.
func TestAppliedAtWhereverTheAddedLinesLie(t *testing.T) {
	text := textlines.Split("a\nNEW\nb\nc\nONLY\n")
	for _, tc := range []struct {
		name  string
		lines []testLine
		want  int
	}{
		{"context first", []testLine{{Context, "a"}, {Remove, "old"}, {Add, "NEW"}, {Context, "b"}}, 1},
		{"added line first", []testLine{{Remove, "old"}, {Add, "NEW"}, {Context, "b"}, {Context, "c"}}, 2},
		{"no context", []testLine{{Remove, "old"}, {Add, "ONLY"}}, 5},
		{"not applied", []testLine{{Remove, "old"}, {Add, "OTHER"}, {Context, "b"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := testHunk{Lines: tc.lines}
			pl := New(text, []Hunk{&h})
			_, m := pl.Place(&h)
			if m == nil {
				t.Fatal("the hunk was placed")
			}
			pl.Explain(m, &h)
			if m.AppliedAt != tc.want {
				t.Errorf("AppliedAt = %d, want %d", m.AppliedAt, tc.want)
			}
		})
	}
}

// M9, PERF4: the closest region is searched for the first explainBudget hunks of a file
// that miss, one pass over the file each; the misses after them are reported without
// it, so a payload of thousands of misses costs a few passes, not thousands.
func TestExplainBudget(t *testing.T) {
	text := nearFile(1000)
	pl := New(textlines.Split(strings.Join(text, "\n")+"\n"), nil)
	for k := range explainBudget + 3 {
		var h testHunk
		for _, l := range typo(text[k*10 : k*10+2]) {
			h.Lines = append(h.Lines, testLine{Remove, l})
		}
		m := &Miss{Reason: NotFound}
		pl.Explain(m, &h)
		if explained := m.Near != nil || m.Occurs; explained != (k < explainBudget) || m.Unexplained == (k < explainBudget) {
			t.Errorf("miss %d: near %v, occurs %v, unexplained %v", k, m.Near != nil, m.Occurs, m.Unexplained)
		}
	}
}

// M9: a word is cut into its runs of gramLen characters, by characters, not bytes; a
// shorter word stays whole.
func TestGrams(t *testing.T) {
	for in, want := range map[string][]string{
		"abc":        {"abc"},
		"abcd":       {"abcd"},
		"abcdef":     {"abcd", "bcde", "cdef"},
		"héllo wörd": {"héll", "éllo", "wörd"},
	} {
		if got := grams(in); !slices.Equal(got, want) {
			t.Errorf("grams(%q) = %q, want %q", in, got, want)
		}
	}
}
