package match

import (
	"fmt"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// TestEditedBody: M6. A hunk whose anchor opens a body, found only past that body, is
// refused when the body holds its lines edited (three lines with words exactly, one in
// four edited or gone, or lines inserted between), and placed when it does not.
func TestEditedBody(t *testing.T) {
	const tail = "\nfunc other() {\n\ta := 1\n\tb := 2\n\tc := 3\n\td := 4\n\te := 5\n\t{\n\tz := 3\n\t}\n\tx := compute(1)\n}\n"
	abcd := []string{"\ta := 1", "\tb := 2", "\tc := 3", "\td := 4"}
	for _, tc := range []struct {
		name, body string
		old        []string
		refused    bool
	}{
		{"a comment added to a line", "\ta := 1\n\tb := 2 // two\n\tc := 3\n\td := 4\n", abcd, true},
		{"a name lengthened", "\ta := 1\n\tbb := 2\n\tc := 3\n\td := 4\n", abcd, true},
		{"a line inserted since", "\ta := 1\n\tb := 2\n\tlog()\n\tc := 3\n", abcd[:3], true},
		{"a line deleted since", "\ta := 1\n\tc := 3\n\td := 4\n\te := 5\n", append(abcd[:4:4], "\te := 5"), true},
		{"the hunk's first line missing", "\tb := 2\n\tc := 3\n\td := 4\n", abcd, false},
		{"two of four lines changed", "\ta := 1\n\tbb := 2\n\tcc := 3\n\td := 4\n", abcd, false},
		{"a value replaced, as in a sibling", "\ta := 1\n\tb := 9\n\tc := 3\n\td := 4\n", abcd, false},
		{"one edit in a hunk of three", "\ta := 1\n\tb := 2 // two\n\tc := 3\n", abcd[:3], false},
		{"brackets and one line with words", "\t{\n\tz := 3\n\t}\n\tx := compute(1) // c\n",
			[]string{"\t{", "\tz := 3", "\t}", "\tx := compute(1)"}, false},
		{"one line of hunk", "\ta := 5\n", abcd[:1], false},
		{"nothing alike", "\tprint()\n\tflush()\n", abcd[:2], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := textlines.Split("func f() {\n" + tc.body + "}\n" + tail)
			hs := []testHunk{{Anchor: "func f() {", Lines: linesOf(tc.old)}}
			hs[0].Lines = append(hs[0].Lines, testLine{Add, "\tadded()"})
			got, miss := New(text, hunksOf(hs)).Place(&hs[0])
			if !tc.refused {
				if miss != nil || got.Start < strings.Count("func f() {\n"+tc.body+"}\n", "\n") {
					t.Fatalf("placed at %d, miss %+v; want placed in other()", got.Start, miss)
				}
				return
			}
			if miss == nil || miss.Reason != OutsideBlock || miss.Near == nil {
				t.Fatalf("placed at %d, miss %+v; want OutsideBlock with the body's region", got.Start, miss)
			}
			if miss.Near.Start != 2 {
				t.Errorf("region starts at line %d, want 2", miss.Near.Start)
			}
		})
	}
}

// TestEditedBodyBudget: PERF4. Hunks found past a long anchored body that holds their
// lines almost everywhere are compared with it within a budget of a few passes over the
// text, and placed as their lines say once it is spent.
func TestEditedBodyBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("func f() {\n")
	for range 3000 {
		b.WriteString("\tx := 1 // a\n\ty := 2\n")
	}
	b.WriteString("}\n\nfunc g() {\n")
	const hunks = 300
	for i := range hunks {
		fmt.Fprintf(&b, "\tx := 1\n\ty := 2\n\tz := %d\n", i)
	}
	b.WriteString("}\n")
	text := textlines.Split(b.String())
	hs := make([]testHunk, hunks)
	for i := range hs {
		hs[i] = testHunk{Anchor: "func f() {", Lines: []testLine{
			{Context, "\tx := 1"}, {Context, "\ty := 2"}, {Remove, fmt.Sprintf("\tz := %d", i)}}}
	}
	pl := New(text, hunksOf(hs))
	for i := range hs {
		if _, miss := pl.Place(&hs[i]); miss != nil {
			t.Fatalf("hunk %d: %+v", i+1, miss)
		}
	}
	if budget := bodyBudget(text.Count()); pl.bodyRead > budget || pl.bodyRead < budget/2 {
		t.Errorf("%d body lines read, want the budget of %d spent and not passed", pl.bodyRead, budget)
	}
}
