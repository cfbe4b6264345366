package lines

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestLineFeedsExact (T2, PERF5): the word test finds a LF at each of the eight places,
// whatever the other bytes are, and sees nothing in a word without one; a byte next to a
// LF (0x0b, 0x09, 0x4a, 0x8a, 0xff) is never taken for one.
func TestLineFeedsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	near := []byte{0x00, 0x09, 0x0b, 0x4a, 0x7f, 0x80, 0xff, 0x8a} // 0x4a and 0x8a: a LF with one bit more
	for round := range 20000 {
		var b [8]byte
		for i := range b {
			if round%2 == 0 {
				b[i] = near[rng.IntN(len(near))]
			} else {
				b[i] = byte(rng.IntN(256))
			}
			if rng.IntN(4) == 0 {
				b[i] = '\n'
			}
		}
		var want uint64
		for i, c := range b {
			if c == '\n' {
				want |= 0x80 << (8 * i)
			}
		}
		if got := lineFeeds(word(string(b[:]), 0)); got != want {
			t.Fatalf("lineFeeds(%q) = %#x, want %#x", b, got, want)
		}
	}
}

// TestFillLFAsSplit (T2, PERF5): the ends of every line, found eight bytes at a time in
// chunks, are those of a split at each LF, for lines shorter than a word, lines across
// chunks, a line longer than a chunk and a last line without a LF; and every line equal
// to a key, of any length, is found, in file order. The oracle uses no filter.
func TestFillLFAsSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 40 {
		var b strings.Builder
		for b.Len() < fillChunk*3+rng.IntN(fillChunk) {
			switch rng.IntN(8) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString(strings.Repeat("z", rng.IntN(fillChunk+9)) + "\n")
			default:
				n := rng.IntN(24)
				for range n {
					b.WriteByte(" ab\x00\x0b\t\x8a\xff"[rng.IntN(8)])
				}
				b.WriteString("\n")
			}
		}
		s := b.String()
		if round%2 == 1 {
			s += "tail"
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		keys, byKey := NewSet(64), map[string]int{}
		for range 64 {
			if k := lines[rng.IntN(len(lines))]; byKey[k] == 0 {
				byKey[k] = keys.Add(k) + 1
			}
		}
		want := make([][]int32, keys.Len())
		var wantEnds []int32
		off := 0
		for i, l := range lines {
			if k := byKey[l]; k > 0 {
				want[k-1] = append(want[k-1], int32(i))
			}
			off = min(off+len(l)+1, len(s))
			wantEnds = append(wantEnds, int32(7+off))
		}
		ends := make([]int32, lineCountLF(s))
		occ := make([][]int32, keys.Len())
		fillLF(s, 7, ends, keys, occ, nil)
		if !slices.Equal(ends, wantEnds) {
			t.Fatalf("round %d: ends differ from a split at each LF (first at line %d)", round, firstDiff32(ends, wantEnds))
		}
		for k := range want {
			if !slices.Equal(occ[k], want[k]) {
				t.Fatalf("round %d: key %q found at %v, want %v", round, keys.keys[k], occ[k], want[k])
			}
		}
	}
}

// TestFilterLetsFewThrough (PERF5): on a file like the benchmark's bigfile, the filter
// lets through the 2,000 key lines and, of the 200,000 others, under one in a hundred,
// each of which then costs a full hash: a bound on the pass's work, by counting.
func TestFilterLetsFewThrough(t *testing.T) {
	s, keys := benchSource()
	passed, others := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		switch {
		case keys.Lookup(l) >= 0:
			if !keys.passes(l, 0, len(l)) {
				t.Fatalf("the filter turned key %q away", l)
			}
		default:
			others++
			if keys.passes(l, 0, len(l)) {
				passed++
			}
		}
	}
	if passed*100 >= others {
		t.Fatalf("%d of %d lines that are no key passed the filter, want under 1%%", passed, others)
	}
	t.Logf("%d of %d other lines passed", passed, others)
}

// firstDiff32 is the first index where a and b differ.
func firstDiff32(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
