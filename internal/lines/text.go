// Package lines holds a file's text as lines that each keep their own terminator. It
// decodes a file's bytes (UTF-8, a byte-order mark, a declared encoding) and encodes them
// back byte for byte, and keeps a compact set of the lines a search looks for.
//
// It never rewrites a line it was not asked to change and never decodes lossily: what it
// cannot round-trip exactly it refuses.
package lines

import (
	"strings"
	"unicode/utf8"

	"github.com/applypatch/applypatch/internal/prefault"
)

// Len is the size of the text in bytes, terminators included.
func (t *Text) Len() int { return len(t.s) }

// Join puts a text back together with its own line terminators.
func (t *Text) Join() string {
	var b strings.Builder
	b.Grow(t.Len() + len(EOLBytes[t.Style]))
	for i := range t.Count() {
		b.WriteString(t.Line(i))
		b.WriteString(EOLBytes[t.EOL(i)])
	}
	return b.String()
}

// EOL is a line terminator as the file has it.
type EOL uint8

const (
	EOLNone EOL = iota // the last line of a file without a final newline
	EOLLF
	EOLCRLF
	EOLCR
)

var EOLBytes = [...]string{EOLNone: "", EOLLF: "\n", EOLCRLF: "\r\n", EOLCR: "\r"}

// Text is a decoded file split into lines. It keeps the content once and, per line, the
// offset just past the line's terminator: four bytes a line instead of a string header
// and a terminator each, and no copy of any line. A line's terminator is read
// back from its last bytes, so untouched lines are written back exactly.
type Text struct {
	s    string
	ends []int32 // ends[i] is the offset in s just past line i and its terminator
	// Style is the terminator for inserted lines: the file's first LF or CRLF; a lone CR
	// only in a file that ends no line in LF, where it is the file's newline rather than
	// a stray one (a doubled CR before a CRLF); LF in a file with none.
	Style EOL
}

// Count is the number of lines.
func (t *Text) Count() int { return len(t.ends) }

// Bounds returns where line i starts, where its text ends and its terminator.
func (t *Text) Bounds(i int) (start, end int, e EOL) {
	if i > 0 {
		start = int(t.ends[i-1])
	}
	end = int(t.ends[i])
	switch {
	case end == start:
	case t.s[end-1] == '\n':
		if end-2 >= start && t.s[end-2] == '\r' {
			return start, end - 2, EOLCRLF
		}
		return start, end - 1, EOLLF
	case t.s[end-1] == '\r':
		return start, end - 1, EOLCR
	}
	return start, end, EOLNone
}

// Line is line i without its terminator.
func (t *Text) Line(i int) string {
	start, end, _ := t.Bounds(i)
	return t.s[start:end]
}

// EOL is line i's own terminator.
func (t *Text) EOL(i int) EOL {
	_, _, e := t.Bounds(i)
	return e
}

// Raw returns lines [lo, hi) as the file has them, each with its own terminator.
func (t *Text) Raw(lo, hi int) string {
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

// Span returns lines [lo, hi) without their terminators, as a slice of their own.
func (t *Text) Span(lo, hi int) []string {
	out := make([]string, hi-lo)
	for i := range out {
		out[i] = t.Line(lo + i)
	}
	return out
}

// Strings returns every line without its terminator, as a slice of its own.
func (t *Text) Strings() []string { return t.Span(0, t.Count()) }

// BinaryProbe is how much of a file is searched for a NUL byte.
const BinaryProbe = 8192

// MaxText is the largest content a text indexes: its offsets are int32. Files are
// limited far below it (Limits.FileBytes); a larger one is refused when decoded.
const MaxText = 1<<31 - 1

// Split splits decoded content into lines. LF, CRLF and a lone CR each end a line; a
// final terminator does not start an extra empty line. s must be at most [MaxText] bytes.
func Split(s string) *Text { return SplitIndexed(s, nil, nil) }

// SplitIndexed is [Split] looking each line, without its terminator, up in keys (when
// not nil) as it is found, and appending the line's number to occ[k] when it is key k:
// the lines are split and indexed in one pass over s.
func SplitIndexed(s string, keys *Set, occ [][]int32) *Text {
	if strings.IndexByte(s, '\r') < 0 {
		return splitLF(s, keys, occ)
	}
	visit := func(i int, line string) {
		if keys != nil {
			if k := keys.Find(line); k >= 0 {
				occ[k] = append(occ[k], int32(i))
			}
		}
	}
	n := strings.Count(s, "\n") + strings.Count(s, "\r") + 1
	t := &Text{s: s, ends: make([]int32, 0, n), Style: EOLLF}
	prefault.Slice(t.ends)
	styled := false
	for off := 0; off < len(s); {
		i := strings.IndexAny(s[off:], "\r\n")
		if i < 0 {
			t.ends = append(t.ends, int32(len(s)))
			visit(len(t.ends)-1, s[off:])
			break
		}
		e, w := EOLLF, 1
		if s[off+i] == '\r' {
			e = EOLCR
			if off+i+1 < len(s) && s[off+i+1] == '\n' {
				e, w = EOLCRLF, 2
			}
		}
		if !styled && e != EOLCR {
			t.Style, styled = e, true
		}
		visit(len(t.ends), s[off:off+i])
		off += i + w
		t.ends = append(t.ends, int32(off))
	}
	if !styled && len(t.ends) > 0 && t.EOL(0) == EOLCR {
		t.Style = EOLCR // every line ends in a lone CR
	}
	return t
}

// NonASCII returns the index of the first byte of s outside ASCII, or -1. It looks at
// eight bytes at a time: a line of source is mostly ASCII.
func NonASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if word(s, i)&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return -1
}
