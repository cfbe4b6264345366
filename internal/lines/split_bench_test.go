package lines

import (
	"fmt"
	"strings"
	"testing"
)

// benchSource is a source file like the benchmark's bigfile: 200,000 lines of short
// statements, closing braces and blank lines, and the key lines of 2,000 hunks.
func benchSource() (string, *Set) {
	var b strings.Builder
	var keys []string
	for f := 0; b.Len() < 4<<20; f++ {
		fmt.Fprintf(&b, "func f0_%d(x int) int {\n", f*8)
		for k := 1; k <= 5; k++ {
			line := fmt.Sprintf("\tx = x*%d + %d // f0 l%d", k, (f*7919+k*104729)%1000, f*8+k)
			if f%12 == 0 && k == 3 {
				keys = append(keys, line)
			}
			b.WriteString(line + "\n")
		}
		b.WriteString("}\n\n")
	}
	set := NewSet(len(keys))
	for _, k := range keys {
		set.Add(k)
	}
	return b.String(), set
}

// BenchmarkFillLF is one goroutine's pass over a 4 MB file: its lines' ends found and
// each line looked up among 2,000 hunks' key lines (PERF1, PERF5).
func BenchmarkFillLF(b *testing.B) {
	s, keys := benchSource()
	ends := make([]int32, lineCountLF(s))
	occ := make([][]int32, keys.Len())
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		for k := range occ {
			occ[k] = occ[k][:0]
		}
		fillLF(s, 0, ends, keys, occ, nil)
	}
}

// BenchmarkSplitLF is the same pass without keys: a file split into lines only.
func BenchmarkSplitLF(b *testing.B) {
	s, _ := benchSource()
	ends := make([]int32, lineCountLF(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		fillLF(s, 0, ends, nil, nil, nil)
	}
}
