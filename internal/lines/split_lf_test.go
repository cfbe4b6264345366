package lines

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitHalvesAsOnePass: a content large enough to be split and indexed in two halves
// at once gives the lines, the offsets and the key occurrences, in order, of one pass
// over it, wherever its middle falls and whether or not it ends with a newline, and joins
// back to the content byte for byte (T2, PERF5).
func TestSplitHalvesAsOnePass(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 6 {
		var b strings.Builder
		for b.Len() < halvesMin+rng.IntN(4096) {
			switch rng.IntN(4) {
			case 0:
				b.WriteString("\n") // blank lines, runs of them where the middle may fall
			default:
				fmt.Fprintf(&b, "line %d\n", rng.IntN(300))
			}
		}
		s := b.String()
		if round%2 == 1 {
			s += "last line without a newline"
		}
		keys := NewSet(8)
		for _, k := range []string{"line 7", "", "line 299", "last line without a newline"} {
			keys.Add(k)
		}
		occ := make([][]int32, keys.Len())
		if halfway(s) == 0 {
			t.Fatalf("round %d: a %d-byte content was not split in halves", round, len(s))
		}
		got := SplitIndexed(s, keys, occ)

		want := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		wantOcc := make([][]int32, keys.Len())
		for i, l := range want {
			if k := keys.Find(l); k >= 0 {
				wantOcc[k] = append(wantOcc[k], int32(i))
			}
		}
		if lines := got.Strings(); !slices.Equal(want, lines) {
			t.Fatalf("round %d: %d lines in halves, %d in one pass (first difference at line %d)", round, len(lines), len(want), firstDifference(want, lines))
		}
		if got.Join() != s {
			t.Fatalf("round %d: the lines do not join back to the content", round)
		}
		if diff := cmp.Diff(wantOcc, occ); diff != "" {
			t.Fatalf("round %d: key occurrences (-one pass +halves):\n%s", round, diff)
		}
	}
}

// TestHalfwayCutsAfterALineFeed: the halves meet just past a LF, never inside a line, and
// a content with no LF past its middle is taken in one pass.
func TestHalfwayCutsAfterALineFeed(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	long := strings.Repeat("x", halvesMin)
	for _, tc := range []struct {
		name string
		s    string
		want int
	}{
		{"small", "a\nb\n", 0},
		{"one long line", long, 0},
		{"only LF is the last byte", long + "\n", 0},
		{"LF past the middle", long + "\nrest", len(long) + 1},
	} {
		if got := halfway(tc.s); got != tc.want {
			t.Errorf("%s: halfway = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// firstDifference is the first index where a and b differ.
func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
