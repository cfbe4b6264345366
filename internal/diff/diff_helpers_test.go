package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// numberedLines returns the lines "one", "two", ... up to n (n <= 12).
func numberedLines(n int) []string {
	names := strings.Fields("one two three four five six seven eight nine ten eleven twelve")
	return append([]string(nil), names[:n]...)
}

// upperLines returns a copy of lines with lines[i] upper-cased for each i.
func upperLines(lines []string, idx ...int) []string {
	out := append([]string(nil), lines...)
	for _, i := range idx {
		out[i] = strings.ToUpper(out[i])
	}
	return out
}

// diffHunkText renders hunks as "@@ -OldStart,OldLen +NewStart,NewLen" headers and marked
// lines, for compact expectations.
func diffHunkText(hunks []Hunk) []string {
	var out []string
	for _, h := range hunks {
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d", h.OldStart, h.OldLen, h.NewStart, h.NewLen))
		for _, l := range h.Lines {
			out = append(out, string(rune(l.Kind))+l.Text)
		}
	}
	return out
}

// lcsLenOracle is the brute-force O(N*M) length of a longest common subsequence of a and b.
func lcsLenOracle(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			default:
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkDiffOps verifies that ops is a valid script from a to b (indexes in order, context
// lines equal, every line covered) and that it is minimal when small enough to check.
func checkDiffOps(t *testing.T, a, b []string, ops []Op) {
	t.Helper()
	i, j, edits := 0, 0, 0
	for n, op := range ops {
		if op.A != i || op.B != j {
			t.Fatalf("op %d = %+v, want A=%d B=%d", n, op, i, j)
		}
		switch op.Kind {
		case KindContext:
			if i >= len(a) || j >= len(b) || a[i] != b[j] {
				t.Fatalf("op %d: bad context %+v", n, op)
			}
			i++
			j++
		case KindRemove:
			if i >= len(a) {
				t.Fatalf("op %d: remove past end %+v", n, op)
			}
			if n > 0 && ops[n-1].Kind == KindAdd {
				t.Fatalf("op %d: remove after insert in one region", n)
			}
			i++
			edits++
		case KindAdd:
			if j >= len(b) {
				t.Fatalf("op %d: insert past end %+v", n, op)
			}
			j++
			edits++
		default:
			t.Fatalf("op %d: bad kind %q", n, op.Kind)
		}
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("ops cover a[:%d] b[:%d], want %d and %d lines", i, j, len(a), len(b))
	}
	if len(a)*len(b) <= 1<<16 {
		if want := len(a) + len(b) - 2*lcsLenOracle(a, b); edits != want {
			t.Fatalf("%d edits, minimum is %d\na=%q\nb=%q", edits, want, a, b)
		}
	}
}

// spliceDiffHunks splices hunks into a, checking that their context and removed lines match a
// and that their positions and lengths are consistent.
func spliceDiffHunks(a []string, hunks []Hunk) ([]string, error) {
	var out []string
	pos := 0
	for n, h := range hunks {
		if h.OldStart < pos || h.OldStart+h.OldLen > len(a) {
			return nil, fmt.Errorf("hunk %d: old range %d+%d out of order or bounds",
				n, h.OldStart, h.OldLen)
		}
		out = append(out, a[pos:h.OldStart]...)
		if h.NewStart != len(out) {
			return nil, fmt.Errorf("hunk %d: NewStart %d, want %d", n, h.NewStart, len(out))
		}
		i := h.OldStart
		for _, l := range h.Lines {
			if l.Kind != KindAdd {
				if i >= len(a) || a[i] != l.Text {
					return nil, fmt.Errorf("hunk %d: line %q does not match a[%d]", n, l.Text, i)
				}
				i++
			}
			if l.Kind != KindRemove {
				out = append(out, l.Text)
			}
		}
		if i-h.OldStart != h.OldLen || len(out)-h.NewStart != h.NewLen {
			return nil, fmt.Errorf("hunk %d: lengths %d,%d, lines say %d,%d",
				n, h.OldLen, h.NewLen, i-h.OldStart, len(out)-h.NewStart)
		}
		pos = i
	}
	return append(out, a[pos:]...), nil
}

// checkDiffHunks verifies that hunks turn a into b and are grouped as GNU diff -U context
// groups them: each hunk changes something, has exactly context lines of context around
// its changes unless a file edge is nearer, and hunks are split only where more than
// 2*context unchanged lines separate changes.
func checkDiffHunks(t *testing.T, a, b []string, hunks []Hunk, context int) {
	t.Helper()
	got, err := spliceDiffHunks(a, hunks)
	if err != nil {
		t.Fatalf("%v\na=%q\nb=%q\nhunks=%q", err, a, b, diffHunkText(hunks))
	}
	if !slices.Equal(b, got) {
		t.Fatalf("applying hunks (-want +got):\n%s", cmp.Diff(b, got))
	}
	if (hunks == nil) != slices.Equal(a, b) {
		t.Fatalf("got %d hunks for equal=%v", len(hunks), slices.Equal(a, b))
	}
	prevEnd, prevTrail := 0, 0
	for n, h := range hunks {
		lead, trail := hunkEdgeContext(h.Lines)
		if lead == len(h.Lines) {
			t.Fatalf("hunk %d changes nothing", n)
		}
		if lead > context || trail > context {
			t.Fatalf("hunk %d: context %d/%d exceeds %d", n, lead, trail, context)
		}
		if lead < context && h.OldStart != 0 {
			t.Fatalf("hunk %d: only %d leading context lines", n, lead)
		}
		if trail < context && h.OldStart+h.OldLen != len(a) {
			t.Fatalf("hunk %d: only %d trailing context lines", n, trail)
		}
		if n > 0 && prevTrail+h.OldStart-prevEnd+lead <= 2*context {
			t.Fatalf("hunk %d should have been merged with the previous one", n)
		}
		prevEnd, prevTrail = h.OldStart+h.OldLen, trail
	}
}

// hunkEdgeContext counts the Context lines at the start and at the end of lines.
func hunkEdgeContext(lines []Line) (lead, trail int) {
	for lead < len(lines) && lines[lead].Kind == KindContext {
		lead++
	}
	for trail < len(lines) && lines[len(lines)-1-trail].Kind == KindContext {
		trail++
	}
	return lead, trail
}

// goFuncLines is a small Go file with functions a and b, and, when withN, n between them.
func goFuncLines(withN bool) []string {
	lines := []string{"package p", "", "func a() {", "\treturn", "}", ""}
	if withN {
		lines = append(lines, "func n() {", "\treturn", "}", "")
	}
	return append(lines, "func b() {", "\treturn", "}")
}
