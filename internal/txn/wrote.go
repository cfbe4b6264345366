package txn

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/crc32c"
	"github.com/applypatch/applypatch/internal/filestate"
)

// The journal records what each write step puts in its file, so that recovery can tell
// the file this commit wrote from one someone else wrote after it. That identity is the
// content's size and its CRC-32C (Castagnoli, computed by the processor's own
// instruction where it has one: about a tenth of the time a SHA-256 takes).
//
// A checksum suffices because the equality it must not meet is accidental, not
// adversarial: another program that happens to leave the path, after this commit wrote
// it and before recovery runs, with other content of exactly the same size and the same
// 32-bit checksum (about one chance in four billion). An adversary gains nothing by
// forging a collision: anyone who can write the workspace can already write any file in
// it, the restored baseline included. Journals whose identity is a hex SHA-256, as older
// versions wrote them, are still read.
const wroteCRCPrefix = "crc32c:"

// wroteID is the journal's identity of content of size bytes with the CRC-32C sum.
func wroteID(size int64, sum uint32) string {
	return wroteCRCPrefix + strconv.FormatInt(size, 10) + ":" + fmt.Sprintf("%08x", sum)
}

// wroteIDOf is the identity of b.
func wroteIDOf(b []byte) string { return wroteID(int64(len(b)), crc32c.Checksum(b)) }

// WroteMatches reports whether data, what a path holds, is what the journal says its
// step wrote: id is a wroteID, or the hex SHA-256 an older journal recorded.
func WroteMatches(data []byte, id string) bool {
	if rest, ok := strings.CutPrefix(id, wroteCRCPrefix); ok {
		size, _, ok := strings.Cut(rest, ":")
		return ok && size == strconv.Itoa(len(data)) && wroteIDOf(data) == id
	}
	return id != "" && filestate.Hash(data) == id
}

// WroteID is the journal's identity of a body (see wroteID): what a Write step of it
// records (see Step.Written).
func WroteID(b Body) string { return wroteID((&Step{Op: Write, Body: b}).Written()) }

// heldBytes is a body of bytes held in memory: a baseline put back.
type heldBytes []byte

// WriteOut writes the bytes to w.
func (h heldBytes) WriteOut(w io.Writer) error {
	_, err := w.Write(h)
	return err
}

// Equal reports whether the bytes are exactly b.
func (h heldBytes) Equal(b []byte) bool { return bytes.Equal(h, b) }

// HasPrefix reports whether b is a prefix of the bytes.
func (h heldBytes) HasPrefix(b []byte) bool { return bytes.HasPrefix(h, b) }
