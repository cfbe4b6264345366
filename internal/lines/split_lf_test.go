package lines

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/applypatch/applypatch/internal/turns"
)

// TestSplitSharedAsOnePass: a content large enough to be split and indexed on two
// goroutines gives the lines, the offsets and the key occurrences, in order, of one
// pass over it, wherever its pieces meet and whether or not it ends with a newline, and
// joins back to the content byte for byte (T2, PERF5).
func TestSplitSharedAsOnePass(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 6 {
		var b strings.Builder
		for b.Len() < sharedMin+rng.IntN(4096) {
			switch rng.IntN(4) {
			case 0:
				b.WriteString("\n") // blank lines, runs of them where a piece may end
			default:
				fmt.Fprintf(&b, "line %d\n", rng.IntN(300))
			}
		}
		s := b.String()
		if round%2 == 1 {
			s += "last line without a newline"
		}
		if cuts := cutLF(s, turns.Pieces); len(cuts) != turns.Pieces {
			t.Fatalf("round %d: a %d-byte content was cut into %d pieces, want %d", round, len(s), len(cuts), turns.Pieces)
		}
		keys := testKeys()
		occ := make([][]int32, keys.Len())
		checkOnePass(t, fmt.Sprintf("round %d", round), s, keys, SplitIndexed(s, keys, occ), occ)
	}
}

// FuzzSplitShared: a content cut into any number of pieces, indexed by two goroutines
// taking them in turn, gives what one pass gives (T2, PERF5).
func FuzzSplitShared(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "line 7\n\nline 7\nx", "\n\n\n\n", "line 299\nline 7\n"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		if strings.Contains(s, "\r") {
			t.Skip("splitLF is for content without a CR")
		}
		keys := testKeys()
		occ := make([][]int32, keys.Len())
		cuts := cutLF(s, int(n%24)+1)
		checkOnePass(t, fmt.Sprintf("%d pieces", len(cuts)), s, keys, splitShared(s, cuts, keys, occ), occ)
	})
}

// testKeys are the keys the split tests look up: lines the random contents hold, the
// empty line, and a last line without a newline.
func testKeys() *Set {
	keys := NewSet(8)
	for _, k := range []string{"line 7", "", "line 299", "last line without a newline"} {
		keys.Add(k)
	}
	return keys
}

// checkOnePass fails unless got and occ are what one pass over s finds.
func checkOnePass(t *testing.T, what, s string, keys *Set, got *Text, occ [][]int32) {
	t.Helper()
	want := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if s == "" {
		want = nil
	}
	wantOcc := make([][]int32, keys.Len())
	number := map[string]int{} // the oracle asks no filter
	for k, key := range keys.keys {
		number[key] = k + 1
	}
	for i, l := range want {
		if k := number[l]; k > 0 {
			wantOcc[k-1] = append(wantOcc[k-1], int32(i))
		}
	}
	if lines := got.Strings(); !slices.Equal(want, lines) {
		t.Fatalf("%s: %d lines, %d in one pass (first difference at line %d)", what, len(lines), len(want), firstDifference(want, lines))
	}
	if got.Join() != s {
		t.Fatalf("%s: the lines do not join back to the content", what)
	}
	if diff := cmp.Diff(wantOcc, occ); diff != "" {
		t.Fatalf("%s: key occurrences (-one pass +shared):\n%s", what, diff)
	}
}

// TestCutLFAfterALineFeed (T2, PERF5): every piece but the last ends just past a LF, no piece is
// empty, and a content with no LF to cut at is one piece.
func TestCutLFAfterALineFeed(t *testing.T) {
	long := strings.Repeat("x", 64)
	for _, tc := range []struct {
		name string
		s    string
		n    int
		want []int
	}{
		{"empty", "", 4, []int{0}},
		{"one long line", long, 4, []int{64}},
		{"only LF is the last byte", long + "\n", 4, []int{65}},
		{"one LF past the middle", long + "\nrest", 4, []int{65, 69}},
		{"short lines", "a\nb\nc\nd\n", 4, []int{4, 6, 8}},
		{"one piece asked for", "a\nb\n", 1, []int{4}},
	} {
		got := cutLF(tc.s, tc.n)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: cutLF = %v, want %v", tc.name, got, tc.want)
		}
		for i, end := range got[:len(got)-1] {
			if tc.s[end-1] != '\n' || (i > 0 && end <= got[i-1]) {
				t.Errorf("%s: piece %d ends at %d, not just past a LF after the piece before", tc.name, i, end)
			}
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
