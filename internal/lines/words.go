package lines

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// word returns the eight bytes of s at i as a little-endian word; s must hold them.
// It compiles to one load where the processor allows loads at any address.
func word(s string, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))[:])
}

// words returns the first and last eight bytes of s[lo:hi] as little-endian words, x
// and y; a line shorter than eight bytes is all in x, and y is zero.
func words(s string, lo, hi int) (x, y uint64) {
	if hi-lo >= 8 {
		return word(s, lo), word(s, hi-8)
	}
	for i := lo; i < hi; i++ {
		x |= uint64(s[i]) << (8 * (i - lo))
	}
	return x, 0
}

// lineFeeds has the top bit of each byte of w set where the byte is a LF, and no other
// bit: the zero-byte test of w with every LF made zero, in its exact form, where no
// carry crosses from one byte into the next.
func lineFeeds(w uint64) uint64 {
	const (
		lf   = 0x0a0a0a0a0a0a0a0a
		low7 = 0x7f7f7f7f7f7f7f7f
	)
	x := w ^ lf
	return ^((x&low7 + low7) | x) &^ low7
}

// feedsIn writes to ends, from index n, the offset just past each LF of s[lo:hi], and
// returns the index after the last it wrote. It tests eight bytes at a time and takes
// the offsets from the bits set, so the lines' ends do not wait on one another as they
// do when each is searched for from the one before.
func feedsIn(s string, lo, hi int, ends []int32, n int) int {
	i := lo
	for ; i+8 <= hi; i += 8 {
		for m := lineFeeds(word(s, i)); m != 0; m &= m - 1 {
			ends[n] = int32(i + bits.TrailingZeros64(m)>>3 + 1)
			n++
		}
	}
	for ; i < hi; i++ {
		if s[i] == '\n' {
			ends[n] = int32(i + 1)
			n++
		}
	}
	return n
}
