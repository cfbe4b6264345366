package crc32c

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// The sums are CRC-32C's (the journal's and the history's identity of a content, made
// on first use for PERF5), whatever the input's length (the long ones take the path that
// splits the input in three) and however it is cut into updates or written to a Sum.
func TestSumsAreCRC32C(t *testing.T) {
	ref := crc32.MakeTable(crc32.Castagnoli)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 503, 504, 4031, 4032, 1 << 16, 1<<20 + 3} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		want := crc32.Checksum(b, ref)
		if got := Checksum(b); got != want {
			t.Errorf("Checksum of %d bytes = %08x, want %08x", n, got, want)
		}
		cut := r.IntN(n + 1)
		if got := Update(Update(0, b[:cut]), b[cut:]); got != want {
			t.Errorf("Update of %d bytes cut at %d = %08x, want %08x", n, cut, got, want)
		}
		var s Sum
		s.Write(b[:cut])
		s.Write(b[cut:])
		if s.N != int64(n) || s.CRC != want {
			t.Errorf("a Sum of %d bytes cut at %d holds %d bytes and %08x, want %d and %08x", n, cut, s.N, s.CRC, n, want)
		}
	}
	if got := Checksum([]byte("123456789")); got != 0xe3069283 {
		t.Errorf(`Checksum("123456789") = %08x, want the standard check value e3069283`, got)
	}
}
