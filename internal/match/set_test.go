package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// TestMatchSetAgreesWithFind: M1, M2. The lazy match set holds exactly the starts the
// index's full search finds, at every pass and for End of File starts, and its nearest
// start is the nearest of those.
func TestMatchSetAgreesWithFind(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	words := []string{"a", "a ", " a", "b", "“a”", "\"a\"", ""}
	for range 300 {
		lines := make([]string, 1+r.IntN(30))
		for i := range lines {
			lines[i] = words[r.IntN(len(words))]
		}
		old := make([]string, 1+r.IntN(3))
		for i := range old {
			old[i] = words[r.IntN(len(words))]
		}
		text := textlines.Split(strings.Join(lines, "\n") + "\n")
		x := newLineIndex(text, hunksOf([]testHunk{{Lines: []testLine{{Kind: Remove, Text: old[0]}}}, {Lines: linesOf(old)}}))
		n := text.Count()
		for _, p := range passes {
			for _, eof := range []int{-1, n - len(old)} {
				want := x.find(old, p, eof)
				got, total, _ := x.matchSetOf(old, p, eof).list(0, n, n+1)
				if !slices.Equal(got, want) || total != len(want) {
					t.Fatalf("pass %v eof %d lines %q old %q: set %v, find %v", p, eof, lines, old, got, want)
				}
				if len(want) == 0 {
					continue
				}
				target := r.IntN(n)
				best := slices.MinFunc(want, func(a, b int) int { return abs(a-target) - abs(b-target) })
				if near := x.matchSetOf(old, p, eof).nearest(0, n, target); !slices.Contains(near, best) {
					t.Fatalf("nearest(%d) = %v, not %d of %v", target, near, best, want)
				}
			}
		}
	}
}

// TestKeyIndexFindsWhatTheWholeIndexFinds: the exact pass first looks a hunk up by its
// key line alone, in an index built while the text is split (PERF1). On files of few,
// much repeated lines, where key lines are often common and the whole index takes over,
// every hunk must get the same starts either way.
func TestKeyIndexFindsWhatTheWholeIndexFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		vocab := 1 + rng.IntN(30)
		n := 1 + rng.IntN(300)
		lines := make([]string, n)
		for i := range lines {
			lines[i] = strings.Repeat("x", rng.IntN(vocab))
		}
		file := strings.Join(lines, "\n") + "\n"
		var hunks []testHunk
		var olds [][]string
		for range 1 + rng.IntN(5) {
			s := rng.IntN(n)
			old := lines[s:min(n, s+1+rng.IntN(4))]
			if rng.IntN(4) == 0 {
				old = append(slices.Clone(old), "absent")
			}
			h := testHunk{}
			for _, l := range old {
				h.Lines = append(h.Lines, testLine{Kind: Context, Text: l})
			}
			hunks, olds = append(hunks, h), append(olds, old)
		}
		_, keyed := indexText(file, hunksOf(hunks))
		whole := newLineIndex(textlines.Split(file), hunksOf(hunks))
		for _, old := range olds {
			a, b := keyed.matchSetOf(old, Exact, -1), whole.matchSetOf(old, Exact, -1)
			if got, want := fmt.Sprint(listAll(a, n)), fmt.Sprint(listAll(b, n)); got != want {
				t.Fatalf("trial %d, %q in %q: key index finds %s, whole index %s", trial, old, lines, got, want)
			}
		}
	}
}

func listAll(ms *matchSet, n int) []int {
	out, _, _ := ms.list(0, n, n)
	return out
}
