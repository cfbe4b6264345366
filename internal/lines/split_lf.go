package lines

import (
	"runtime"
	"strings"

	"github.com/applypatch/applypatch/internal/prefault"
)

// halvesMin is the smallest content split in two halves on two goroutines: below it
// the goroutine and the merge cost more than half of the pass saves.
const halvesMin = 1 << 20

// splitLF is SplitIndexed for content without a CR, the common case. Most lines of a
// large file are none of the keys: the filter turns them away here, without a call. A
// large content is split and indexed in two halves at once where two processors run,
// each half into its own part of the offsets; the keys are only read.
func splitLF(s string, keys *Set, occ [][]int32) *Text {
	cut := halfway(s)
	if cut == 0 {
		t := &Text{s: s, ends: make([]int32, lineCountLF(s)), Style: EOLLF}
		prefault.Slice(t.ends)
		fillLF(s, 0, t.ends, keys, occ, nil)
		return t
	}
	head, tail := s[:cut], s[cut:]
	counted := make(chan int)
	go func() { counted <- lineCountLF(tail) }()
	nh := lineCountLF(head)
	t := &Text{s: s, ends: make([]int32, nh+<-counted), Style: EOLLF}
	prefault.Slice(t.ends)
	var later []hit // the tail's keys, numbered from its first line
	done := make(chan struct{})
	go func() {
		fillLF(tail, int32(cut), t.ends[nh:], keys, nil, &later)
		close(done)
	}()
	fillLF(head, 0, t.ends[:nh], keys, occ, nil)
	<-done
	for _, h := range later {
		occ[h.key] = append(occ[h.key], int32(nh)+h.line)
	}
	return t
}

// halfway is where a content is split in two for splitLF: just past the first LF at or
// after its middle, or 0 when it is split in one pass (small, one processor, or no LF
// to cut at).
func halfway(s string) int {
	if len(s) < halvesMin || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	i := strings.IndexByte(s[len(s)/2:], '\n')
	if i < 0 || len(s)/2+i+1 == len(s) {
		return 0
	}
	return len(s)/2 + i + 1
}

// lineCountLF is the number of lines of content without a CR: one a LF, and one more
// for a last line without one.
func lineCountLF(s string) int {
	n := strings.Count(s, "\n")
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// A hit is a line that is a key, found by a pass that cannot append to the shared lists.
type hit struct{ key, line int32 }

// fillLF sets ends, exactly one per line of s, to each line's end plus base, and looks
// each line up in keys (when not nil): its number is appended to occ[k], or, with occ
// nil, to hits.
func fillLF(s string, base int32, ends []int32, keys *Set, occ [][]int32, hits *[]hit) {
	off := 0
	for n := range ends {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			i = len(s) - off
		}
		if line := s[off : off+i]; keys != nil && keys.MayHold(quickHash(line)) {
			if k := keys.Lookup(line); k >= 0 {
				if occ != nil {
					occ[k] = append(occ[k], int32(n))
				} else {
					*hits = append(*hits, hit{int32(k), int32(n)})
				}
			}
		}
		off = min(off+i+1, len(s))
		ends[n] = base + int32(off)
	}
}
