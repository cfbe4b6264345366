package prefault

import (
	"bytes"
	"testing"
)

// TestWriteKeepsContent: populating a buffer's pages changes none of its bytes, whether
// it starts on a page or not, and an empty or small buffer is left alone.
func TestWriteKeepsContent(t *testing.T) {
	b := make([]byte, 1<<20+123)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := bytes.Clone(b)
	for _, s := range [][]byte{b, b[1:], b[4095 : len(b)-3], b[:100], b[:0]} {
		Write(s)
	}
	if !bytes.Equal(b, want) {
		t.Fatal("Write changed the buffer's bytes")
	}
	freshReadsZero(t, 1<<20)
	ends := make([]int32, 0, 100_000)
	Slice(ends)
	Slice([]int32(nil))
	if len(ends) != 0 || cap(ends) != 100_000 {
		t.Fatal("Slice changed the slice")
	}
}

// TestHugePagesKeepContent: with huge pages allowed, a buffer spanning several 2 MB
// boundaries keeps its bytes, and a fresh one still reads as zero.
func TestHugePagesKeepContent(t *testing.T) {
	defer huge.Store(huge.Load())
	AllowHugePages()
	b := make([]byte, 5<<20+321)
	for i := range b {
		b[i] = byte(i * 13)
	}
	want := bytes.Clone(b)
	Write(b[7:])
	if !bytes.Equal(b, want) {
		t.Fatal("Write with huge pages changed the buffer's bytes")
	}
	freshReadsZero(t, 5<<20)
}

// freshReadsZero checks that a fresh buffer of n bytes reads as zero after Write.
func freshReadsZero(t *testing.T, n int) {
	t.Helper()
	fresh := make([]byte, n)
	Write(fresh)
	if bytes.ContainsFunc(fresh, func(r rune) bool { return r != 0 }) {
		t.Fatalf("a fresh buffer of %d bytes does not read as zero after Write", n)
	}
}
