package lines

import (
	"strings"

	"github.com/applypatch/applypatch/internal/prefault"
	"github.com/applypatch/applypatch/internal/turns"
)

// sharedMin is the smallest content split on two goroutines, in turns.Pieces pieces:
// below it the goroutine and the merge cost more than half of the pass saves.
const sharedMin = 1 << 20

// splitLF is SplitIndexed for content without a CR, the common case. Most lines of a
// large file are none of the keys: the filter turns them away here, without a call. A
// large content is split and indexed on two goroutines where two processors run (see
// splitShared).
func splitLF(s string, keys *Set, occ [][]int32) *Text {
	if len(s) >= sharedMin && turns.SecondProcessor() {
		if cuts := cutLF(s, turns.Pieces); len(cuts) > 1 {
			return splitShared(s, cuts, keys, occ)
		}
	}
	t := &Text{s: s, ends: make([]int32, lineCountLF(s)), Style: EOLLF}
	prefault.Slice(t.ends)
	fillLF(s, 0, t.ends, keys, occ, nil)
	return t
}

// cutLF cuts s into at most n pieces of about equal length, each but the last ending
// just past a LF, and returns where each piece ends: strictly increasing, the last
// len(s). A piece is never empty, and a content with no LF to cut at is one piece.
func cutLF(s string, n int) []int {
	cuts := make([]int, 0, n)
	for i := 1; i < n; i++ {
		from := len(s) * i / n
		if k := len(cuts); k > 0 {
			from = max(from, cuts[k-1])
		}
		j := strings.IndexByte(s[from:], '\n')
		if j < 0 {
			break
		}
		if end := from + j + 1; end < len(s) {
			cuts = append(cuts, end)
		}
	}
	return append(cuts, len(s))
}

// splitShared is splitLF for a content cut into pieces (cuts, from cutLF): the lines
// of each piece are counted first, so that each piece has its own part of the offsets,
// and then the calling goroutine and one more take the pieces in turn (see
// turns.Take), the first piece of work being to make the offsets resident, which the
// caller does while the other goroutine wakes. The keys are only read; each piece's hits
// are kept apart and appended in piece order (AppendHits), so every key's positions stay
// in file order.
func splitShared(s string, cuts []int, keys *Set, occ [][]int32) *Text {
	first := make([]int, len(cuts)+1) // the number of each piece's first line
	start := 0
	for i, end := range cuts {
		first[i+1] = first[i] + lineCountLF(s[start:end])
		start = end
	}
	t := &Text{s: s, ends: make([]int32, first[len(cuts)]), Style: EOLLF}
	hits := piecesOf(len(cuts), len(occ)) // by piece, numbered from its first line
	turns.Take(len(cuts)+1, func(i int) {
		if i == 0 {
			prefault.Slice(t.ends) // the pages a piece reaches first, its goroutine faults itself
			return
		}
		i--
		start := 0
		if i > 0 {
			start = cuts[i-1]
		}
		fillLF(s[start:cuts[i]], int32(start), t.ends[first[i]:first[i+1]], keys, nil, &hits[i])
	})
	for i, hs := range hits {
		for j := range hs {
			hs[j].Line += int32(first[i])
		}
	}
	AppendHits(occ, hits)
	return t
}

// piecesOf returns room for the hits of n pieces of a content searched for k keys, in
// one allocation: most keys a hunk is looked up by occur once, so k hits are shared out
// among the pieces, with a little more each; a piece that finds more grows its own.
func piecesOf(n, k int) [][]Hit {
	each := k/n + 8
	room := make([]Hit, n*each)
	hits := make([][]Hit, n)
	for i := range hits {
		hits[i] = room[i*each : i*each : (i+1)*each]
	}
	return hits
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

// fillChunk is how much of a content fillLF finds the line ends of before it looks
// those lines up: the bytes are still in the processor's cache when they are read again.
const fillChunk = 16 << 10

// fillLF sets ends, exactly one per line of s, to each line's end plus base, and looks
// each line up in keys (when not nil): its number is appended to occ[k], or, with occ
// nil, to hits. Most lines of a large file are none of the keys: the filter turns them
// away from their length and first and last eight bytes, without a call.
func fillLF(s string, base int32, ends []int32, keys *Set, occ [][]int32, hits *[]Hit) {
	n, start := 0, 0 // the lines done, and where the next one starts
	for c := 0; c < len(s); c += fillChunk {
		for found := feedsIn(s, c, min(c+fillChunk, len(s)), ends, n); n < found; n++ {
			end := int(ends[n])
			if keys != nil {
				if x, y := words(s, start, end-1); keys.holds(keys.probes(x, y, end-1-start)) { // passes, inlined
					note(keys, s[start:end-1], n, occ, hits)
				}
			}
			start = end
			ends[n] = base + int32(end)
		}
	}
	if n < len(ends) { // a last line without a LF
		if keys != nil && keys.passes(s, start, len(s)) {
			note(keys, s[start:], n, occ, hits)
		}
		ends[n] = base + int32(len(s))
	}
}

// note notes the number n of a line that passed the keys' filter, where it is a key.
func note(keys *Set, line string, n int, occ [][]int32, hits *[]Hit) {
	switch k := keys.Lookup(line); {
	case k < 0:
	case occ != nil:
		occ[k] = append(occ[k], int32(n))
	default:
		*hits = append(*hits, Hit{Key: int32(k), Line: int32(n)})
	}
}
