package applypatch

import (
	"fmt"
	textlines "github.com/applypatch/applypatch/internal/lines"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

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
		var hunks []Hunk
		var olds [][]string
		for range 1 + rng.IntN(5) {
			s := rng.IntN(n)
			old := lines[s:min(n, s+1+rng.IntN(4))]
			if rng.IntN(4) == 0 {
				old = append(slices.Clone(old), "absent")
			}
			h := Hunk{}
			for _, l := range old {
				h.Lines = append(h.Lines, Line{Kind: LineContext, Text: l})
			}
			hunks, olds = append(hunks, h), append(olds, old)
		}
		_, keyed := indexText(file, hunks)
		whole := newLineIndex(textlines.Split(file), hunks)
		for _, old := range olds {
			a, b := keyed.matchSetOf(old, passExact, -1), whole.matchSetOf(old, passExact, -1)
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

// TestLineSetNumbersWantedLines: the line index's table finds every line it was given
// and no other, however many share a hash slot or pass its filter.
func TestLineSetNumbersWantedLines(t *testing.T) {
	ls := textlines.NewSet(3) // grows past its first size
	var keys []string
	for i := range 5000 {
		k := fmt.Sprint("k", i*7)
		if got := ls.Add(k); got != i {
			t.Fatalf("add(%q) = %d, want %d", k, got, i)
		}
		keys = append(keys, k)
	}
	if got := ls.Add("k7"); got != 1 {
		t.Fatalf("adding a key again numbered it %d, want 1", got)
	}
	for i, k := range keys {
		if got := ls.Find(k); got != i {
			t.Fatalf("find(%q) = %d, want %d", k, got, i)
		}
	}
	for i := range 50000 {
		if i%7 != 0 || i >= 35000 {
			if got := ls.Find(fmt.Sprint("k", i)); got != -1 {
				t.Fatalf("find(k%d) = %d, want -1", i, got)
			}
		}
	}
	if ls.Find("") != -1 {
		t.Fatal("the empty line was found in a set without it")
	}
}
