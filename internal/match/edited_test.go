package match

import (
	"fmt"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// TestEditedBody: M6. A hunk whose anchor opens a body, found only past that body, is
// refused when the body holds its lines edited (all but one in four alike, a line with a
// word exactly), and placed when it does not.
func TestEditedBody(t *testing.T) {
	const tail = "\nfunc other() {\n\tx := 1\n\ty := 2\n\tz := 3\n\tw := 4\n\t{\n\tz := 3\n\t}\n}\n"
	for _, tc := range []struct {
		name, body string
		old        []string
		refused    bool
	}{
		{"a comment added to a line", "\tx := 1\n\ty := 2 // two\n", []string{"\tx := 1", "\ty := 2"}, true},
		{"a name changed", "\tx := 1\n\tyy := 2\n\tz := 3\n\tw := 4\n", []string{"\tx := 1", "\ty := 2", "\tz := 3", "\tw := 4"}, true},
		{"a line inserted since", "\tx := 1\n\tlog()\n\ty := 2\n", []string{"\tx := 1", "\ty := 2"}, true},
		{"a line deleted since", "\tx := 1\n\tz := 3\n\tw := 4\n", []string{"\tx := 1", "\ty := 2", "\tz := 3", "\tw := 4"}, true},
		{"the hunk's first line missing", "\ty := 2\n\tz := 3\n\tw := 4\n", []string{"\tx := 1", "\ty := 2", "\tz := 3", "\tw := 4"}, false},
		{"brackets moved, one word", "\t{\n\n\tz := 3\n", []string{"\t{", "\tz := 3"}, false},
		{"a line inserted and one edited", "\tx := 1\n\tlog()\n\ty := 2\n\tz := 3 // three\n\tw := 4\n", []string{"\tx := 1", "\ty := 2", "\tz := 3", "\tw := 4"}, true},
		{"a value replaced, as in a sibling", "\tx := 1\n\ty := 5\n", []string{"\tx := 1", "\ty := 2"}, false},
		{"two of four lines changed", "\tx := 1\n\tyy := 2\n\tzz := 3\n\tw := 4\n", []string{"\tx := 1", "\ty := 2", "\tz := 3", "\tw := 4"}, false},
		{"one line in common", "\tx := 1\n\tprint()\n", []string{"\tx := 1", "\ty := 2", "\tz := 3"}, false},
		{"one line of hunk", "\tx := 5\n", []string{"\tx := 1"}, false},
		{"only brackets in common", "\t{\n\tq := 9\n", []string{"\t{", "\tz := 3"}, false},
		{"nothing alike", "\tprint()\n\tflush()\n", []string{"\tx := 1", "\ty := 2"}, false},
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
