package diff

import (
	"fmt"
	"slices"
	"testing"
)

// reversedLines returns n distinct lines and the same lines in reverse order: the input
// that makes an unbounded Myers diff quadratic.
func reversedLines(n int) (a, b []string) {
	a = make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("line %d", i)
	}
	b = slices.Clone(a)
	slices.Reverse(b)
	return a, b
}

// TestDiffReversedBounded: PERF4. Diffing a file against its reversed lines explores a
// number of diagonals that grows linearly with the file (about (N+M)·limit), not as
// (N+M)·D, and the script is still a correct 3-line-context diff.
func TestDiffReversedBounded(t *testing.T) {
	for _, n := range []int{20_000, 80_000} {
		a, b := reversedLines(n)
		ca, cb := make([]bool, len(a)), make([]bool, len(b))
		ia, ib, _ := internLines(a, b)
		idx := func(k int) []int {
			out := make([]int, k)
			for i := range out {
				out[i] = i
			}
			return out
		}
		d := myersDiffer{a: ia, b: ib, ia: idx(n), ib: idx(n), ca: ca, cb: cb, limit: myersLimit(2 * n)}
		d.compare(0, n, 0, n)
		if bound := 4 * 2 * n * d.limit; d.steps > bound {
			t.Errorf("n=%d: %d diagonals explored, want at most %d", n, d.steps, bound)
		}
		ops := diffOpsFromFlags(ca, cb)
		checkDiffOps(t, a, b, ops)
	}
	a, b := reversedLines(5000)
	checkDiffHunks(t, a, b, Hunks(a, b, 3), 3)
}

// BenchmarkHostileRevisionReversed measures the 3-line-context diff a revision derives
// for a file edited to its reversed lines, at two sizes, so the growth shows.
func BenchmarkHostileRevisionReversed(b *testing.B) {
	for _, n := range []int{20_000, 200_000} {
		old, edited := reversedLines(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Hunks(old, edited, 3)
			}
		})
	}
}
