package applypatch

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/applypatch/applypatch/internal/prefault"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// eol is a line terminator as the file has it.
type eol uint8

const (
	eolNone eol = iota // the last line of a file without a final newline
	eolLF
	eolCRLF
	eolCR
)

var eolBytes = [...]string{eolNone: "", eolLF: "\n", eolCRLF: "\r\n", eolCR: "\r"}

// text is a decoded file split into lines. It keeps the content once and, per line, the
// offset just past the line's terminator: four bytes a line instead of a string header
// and a terminator each, and no copy of any line. A line's terminator is read
// back from its last bytes, so untouched lines are written back exactly.
type text struct {
	s    string
	ends []int32 // ends[i] is the offset in s just past line i and its terminator
	// style is the terminator for inserted lines: the file's first one, LF if it has none.
	style eol
}

// count is the number of lines.
func (t *text) count() int { return len(t.ends) }

// bounds returns where line i starts, where its text ends and its terminator.
func (t *text) bounds(i int) (start, end int, e eol) {
	if i > 0 {
		start = int(t.ends[i-1])
	}
	end = int(t.ends[i])
	switch {
	case end == start:
	case t.s[end-1] == '\n':
		if end-2 >= start && t.s[end-2] == '\r' {
			return start, end - 2, eolCRLF
		}
		return start, end - 1, eolLF
	case t.s[end-1] == '\r':
		return start, end - 1, eolCR
	}
	return start, end, eolNone
}

// line is line i without its terminator.
func (t *text) line(i int) string {
	start, end, _ := t.bounds(i)
	return t.s[start:end]
}

// eol is line i's own terminator.
func (t *text) eol(i int) eol {
	_, _, e := t.bounds(i)
	return e
}

// raw returns lines [lo, hi) as the file has them, each with its own terminator.
func (t *text) raw(lo, hi int) string {
	start := 0
	if lo > 0 {
		start = int(t.ends[lo-1])
	}
	end := start
	if hi > 0 {
		end = int(t.ends[hi-1])
	}
	return t.s[start:end]
}

// span returns lines [lo, hi) without their terminators, as a slice of their own.
func (t *text) span(lo, hi int) []string {
	out := make([]string, hi-lo)
	for i := range out {
		out[i] = t.line(lo + i)
	}
	return out
}

// strings returns every line without its terminator, as a slice of its own.
func (t *text) strings() []string { return t.span(0, t.count()) }

// binaryProbe is how much of a file is searched for a NUL byte.
const binaryProbe = 8192

// maxText is the largest content a text indexes: its offsets are int32. Files are
// limited far below it (Limits.FileBytes); a larger one is refused when decoded.
const maxText = 1<<31 - 1

// splitText splits decoded content into lines. LF, CRLF and a lone CR each end a line; a
// final terminator does not start an extra empty line. s must be at most maxText bytes.
func splitText(s string) *text { return splitIndexed(s, nil, nil) }

// splitIndexed is splitText looking each line, without its terminator, up in keys (when
// not nil) as it is found, and appending the line's number to occ[k] when it is key k:
// the lines are split and indexed in one pass over s.
func splitIndexed(s string, keys *lineSet, occ [][]int32) *text {
	if strings.IndexByte(s, '\r') < 0 {
		return splitLF(s, keys, occ)
	}
	visit := func(i int, line string) {
		if keys != nil {
			if k := keys.find(line); k >= 0 {
				occ[k] = append(occ[k], int32(i))
			}
		}
	}
	n := strings.Count(s, "\n") + strings.Count(s, "\r") + 1
	t := &text{s: s, ends: make([]int32, 0, n), style: eolLF}
	prefault.Slice(t.ends)
	styled := false
	for off := 0; off < len(s); {
		i := strings.IndexAny(s[off:], "\r\n")
		if i < 0 {
			t.ends = append(t.ends, int32(len(s)))
			visit(len(t.ends)-1, s[off:])
			break
		}
		e, w := eolLF, 1
		if s[off+i] == '\r' {
			e = eolCR
			if off+i+1 < len(s) && s[off+i+1] == '\n' {
				e, w = eolCRLF, 2
			}
		}
		if !styled {
			t.style, styled = e, true
		}
		visit(len(t.ends), s[off:off+i])
		off += i + w
		t.ends = append(t.ends, int32(off))
	}
	return t
}

// splitLF is splitIndexed for content without a CR, the common case. Most lines of a
// large file are none of the keys: the filter turns them away here, without a call.
func splitLF(s string, keys *lineSet, occ [][]int32) *text {
	t := &text{s: s, ends: make([]int32, 0, strings.Count(s, "\n")+1), style: eolLF}
	prefault.Slice(t.ends)
	for off := 0; off < len(s); {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			i = len(s) - off
		}
		if line := s[off : off+i]; keys != nil && keys.mayHold(quickHash(line)) {
			if k := keys.lookup(line); k >= 0 {
				occ[k] = append(occ[k], int32(len(t.ends)))
			}
		}
		off = min(off+i+1, len(s))
		t.ends = append(t.ends, int32(off))
	}
	return t
}

// codec turns a file's bytes into text and back without loss: a UTF-8 or UTF-16
// byte-order mark is kept, and a declared encoding is decoded and re-encoded.
type codec struct {
	bom []byte
	enc encoding.Encoding // nil for UTF-8
	// name is shown in errors ("UTF-16LE", "ISO-8859-1", …).
	name string
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// byteOrderMarks are the marks recognised at the start of a file, longest first.
var byteOrderMarks = []struct {
	bom  []byte
	enc  encoding.Encoding
	name string
}{
	{bomUTF8, nil, "UTF-8"},
	{bomUTF16LE, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16LE"},
	{bomUTF16BE, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16BE"},
}

// errBinary is decode's refusal of a file that looks binary.
var errBinary = errors.New("the file looks binary")

// decode reads raw bytes as text. declared is the host's encoding for the path (nil for
// none); a byte-order mark takes precedence over it. It refuses what it cannot round-trip
// byte for byte, with an *encodingError, and a file with a NUL character with errBinary.
func decode(raw []byte, declared encoding.Encoding, declaredName string) (string, *codec, error) {
	c := &codec{name: "UTF-8"}
	for _, m := range byteOrderMarks {
		if bytes.HasPrefix(raw, m.bom) {
			c = &codec{bom: m.bom, enc: m.enc, name: m.name}
			raw = raw[len(m.bom):]
			break
		}
	}
	isDeclared := c.bom == nil && declared != nil && declared != unicode.UTF8
	if isDeclared {
		c = &codec{enc: declared, name: declaredName}
	}
	if c.enc == nil {
		if bytes.IndexByte(raw[:min(len(raw), binaryProbe)], 0) >= 0 {
			return "", nil, errBinary
		}
		if !utf8.Valid(raw) {
			return "", nil, &encodingError{Encoding: c.name, Line: invalidUTF8Line(raw), ByteOrderMark: c.bom != nil}
		}
		return shareString(raw), c, nil
	}
	dec, err := c.enc.NewDecoder().Bytes(raw)
	if err != nil || !c.roundTrips(dec, raw) {
		return "", nil, &encodingError{Encoding: c.name, Line: c.firstBadLine(string(dec), raw),
			Declared: isDeclared, ByteOrderMark: c.bom != nil}
	}
	if bytes.IndexByte(dec[:min(len(dec), binaryProbe)], 0) >= 0 {
		return "", nil, errBinary
	}
	return shareString(dec), c, nil
}

// shareString returns b as a string without copying it. The baseline's bytes are never
// modified (Baseline.Bytes says so), and a decoded copy belongs to the text alone, so
// the string stays immutable; a 200,000-line file is then held once, not twice.
func shareString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// invalidUTF8Line is the line of the first byte that is not UTF-8.
func invalidUTF8Line(raw []byte) int {
	for i := 0; i < len(raw); {
		r, w := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && w <= 1 {
			return bytes.Count(raw[:i], []byte("\n")) + 1
		}
		i += w
	}
	return 0
}

// roundTrips reports whether text encodes back to exactly raw.
func (c *codec) roundTrips(text, raw []byte) bool {
	b, err := c.enc.NewEncoder().Bytes(text)
	return err == nil && bytes.Equal(b, raw)
}

// firstBadLine finds the first decoded line that does not encode back to the bytes at
// its place in raw: the line holding the first invalid byte sequence.
func (c *codec) firstBadLine(text string, raw []byte) int {
	off := 0
	for n := 1; text != ""; n++ {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		b, err := c.enc.NewEncoder().Bytes([]byte(text[:i]))
		if err != nil || !bytes.HasPrefix(raw[off:], b) {
			return n
		}
		off, text = off+len(b), text[i:]
	}
	return 0
}

// encode turns text back into the file's bytes. A character the encoding cannot hold is
// an *encodingError, never a replacement.
func (c *codec) encode(s []byte) ([]byte, error) {
	if c.enc == nil {
		if len(c.bom) == 0 {
			return s, nil
		}
		return append(bytes.Clone(c.bom), s...), nil
	}
	b, n, err := transform.Bytes(c.enc.NewEncoder(), s)
	if err != nil {
		r, _ := utf8.DecodeRune(s[n:])
		return nil, &encodingError{Encoding: c.name, Line: bytes.Count(s[:n], []byte("\n")) + 1, Rune: r}
	}
	return append(bytes.Clone(c.bom), b...), nil
}

// encodeAdd is an Add's content in the encoding the host declared for its path, if any.
func (c *change) encodeAdd() ([]byte, error) {
	content := addContent(c.Op.Lines)
	if c.codec == nil {
		return content, nil
	}
	b, err := c.codec.encode(content)
	if err != nil {
		return nil, &FileError{Path: c.Op.Path, Reason: FileUndecodable, Err: err}
	}
	return b, nil
}
