package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unsafe"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/internal/prefault"
)

// payloadLimit is the largest payload the CLI reads, and the limit it resolves under.
const payloadLimit = 16 << 20

// readPayload takes the payload from the argument, a file, or standard input (H5). An
// argument is the payload when it starts with "*** Begin Patch", or when it is no file's
// name and runs over several lines (a patch with a typo in its first line). A file
// or stream is read no further than limit+1 bytes: one byte past the limit is enough to
// refuse it, so a hostile stream costs no more memory than the largest payload allowed
// (PERF4).
func readPayload(args []string, stdin io.Reader, limit int) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		if strings.HasPrefix(strings.TrimSpace(args[0]), "*** Begin Patch") {
			return args[0], nil
		}
		f, err := os.Open(args[0])
		if errors.Is(err, fs.ErrNotExist) && strings.Contains(args[0], "\n") {
			return args[0], nil // lines, not a file's name: parsing says what is wrong with them
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%q is neither a payload file (there is no such file) nor a patch "+
				"(a patch starts with \"*** Begin Patch\"); give a file, the patch itself, or \"-\" for standard input", args[0])
		}
		if err != nil {
			return "", err
		}
		defer f.Close()
		return readLimited(f, limit)
	}
	return readLimited(stdin, limit) // nothing at all is an empty payload, which parsing refuses
}

// readLimited reads r whole, or refuses it with a *ParseError once it holds more than
// limit bytes, reading no further than limit+1. A regular file is read into a buffer of
// its size; any other stream in chunks joined once at the end: the payload is held at most
// twice, never through the copies of a growing buffer, and a stream over the limit costs
// the limit, not a multiple of it.
func readLimited(r io.Reader, limit int) (string, error) {
	lr := io.LimitReader(r, int64(limit)+1)
	if size, ok := regularSize(r); ok {
		return readSized(lr, int(min(size, int64(limit))), limit)
	}
	chunks, n, err := readChunks(lr)
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", overLimit(n, limit)
	}
	var b strings.Builder
	b.Grow(n)
	for _, c := range chunks {
		b.Write(c)
	}
	return b.String(), nil
}

// readSized reads a regular file of the measured size into one buffer, in reads as
// large as what is left, and returns it as a string without copying it: the buffer is
// this function's alone and is never written again. A file that grew since it was
// measured is read on, up to one byte past limit. The buffer is made resident before
// the read, on a huge page's boundary when it is that large (see prefault.Bytes).
func readSized(r io.Reader, size, limit int) (string, error) {
	b := prefault.Bytes(size + 1) // one byte more: the read that finds the end
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if len(b) > limit {
		return "", overLimit(len(b), limit)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// regularSize returns the size of r when it is a regular file.
func regularSize(r io.Reader) (int64, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

// readChunk is the size of the chunks a stream is read in.
const readChunk = 1 << 20

// readChunks reads r to its end in chunks of readChunk bytes and returns them with the
// number of bytes read.
func readChunks(r io.Reader) (chunks [][]byte, n int, err error) {
	for {
		c := make([]byte, readChunk)
		k, err := io.ReadFull(r, c)
		if k > 0 {
			chunks, n = append(chunks, c[:k]), n+k
		}
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return chunks, n, nil
		case err != nil:
			return nil, 0, err
		}
	}
}

// overLimit refuses a payload read from a file or a stream: it has n bytes or more, over
// the limit.
func overLimit(n, limit int) error {
	return &applypatch.ParseError{Msg: fmt.Sprintf("the patch has %d bytes or more, over the limit of %d; "+
		"split the change into smaller patches", n, limit)}
}

// heapFor is about the heap applying payload takes, to be made resident up front (see
// prefault.Heap, which bounds it): prefault.HeapPerFile for each section that has a file
// to read, half of it for an Add (no baseline, no index), and twice the payload for its
// lines. The sections are counted by their headers' usual spelling: an estimate, which a
// payload spelt otherwise only makes smaller.
func heapFor(payload string) int {
	n := 2 * len(payload)
	for at := 0; ; {
		// "*** " is found from its first byte, which few lines hold, and then the line
		// feed before it checked: looked for with the line feed first, every line is a
		// candidate.
		i := strings.Index(payload[at:], "*** ")
		if i < 0 {
			return n
		}
		start := at + i
		at = start + len("*** ")
		switch {
		case start == 0 || payload[start-1] != '\n': // not a header after the first line
		case strings.HasPrefix(payload[at:], "Add File:"):
			n += prefault.HeapPerFile / 2
		default:
			n += prefault.HeapPerFile
		}
	}
}
