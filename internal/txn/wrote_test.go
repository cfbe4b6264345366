package txn

import (
	"testing"

	"github.com/applypatch/applypatch/internal/filestate"
)

// TestWroteMatches: recovery tells the bytes a commit wrote from others by the size and
// CRC-32C its journal records, and still reads the SHA-256 older journals recorded (X11).
func TestWroteMatches(t *testing.T) {
	wrote := []byte("changed\n")
	id := wroteIDOf(wrote)
	if id != "crc32c:8:895da3ce" {
		t.Fatalf("identity %q, want the size and the CRC-32C (Castagnoli)", id)
	}
	for _, tc := range []struct {
		data []byte
		id   string
		want bool
	}{
		{wrote, id, true},
		{[]byte("chanted\n"), id, false},   // same size, other bytes
		{[]byte("changed\n\n"), id, false}, // other size
		{nil, id, false},
		{wrote, "crc32c:9:895da3ce", false},  // the size recorded must match too
		{wrote, filestate.Hash(wrote), true}, // an older journal's SHA-256
		{[]byte("chanted\n"), filestate.Hash(wrote), false},
		{wrote, "", false}, // a removal writes nothing
	} {
		if got := WroteMatches(tc.data, tc.id); got != tc.want {
			t.Errorf("WroteMatches(%q, %q) = %v, want %v", tc.data, tc.id, got, tc.want)
		}
	}
}
