package lines

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// An EncodingError refuses a file that is not valid in its encoding, or a result holding
// a character its encoding cannot represent. Nothing is written: a file is never
// rewritten lossily. The library wraps it in a file error naming the path.
// naming the path.
type EncodingError struct {
	// Encoding names the file's encoding: "UTF-8", "UTF-16LE", "ISO-8859-1", …
	Encoding string
	// Line is the 1-based line of the first invalid byte, or of the first character that
	// cannot be encoded; 0 when it cannot be told.
	Line int
	// Rune is the character the encoding cannot hold, for a result that cannot be
	// written; 0 for a file whose bytes are not valid.
	Rune rune
	// Declared is set when the host declared the encoding for the path.
	Declared bool
	// ByteOrderMark is set when the encoding came from the byte-order mark the file starts
	// with, which takes precedence over any declared encoding.
	ByteOrderMark bool
}

func (e *EncodingError) Error() string {
	subject := "the file"
	if e.Rune != 0 {
		subject = "the result"
	}
	if e.Line > 0 {
		subject = fmt.Sprintf("line %d of %s", e.Line, subject)
	}
	switch {
	case e.Rune != 0:
		return fmt.Sprintf("%s has %q (U+%04X), which %s cannot encode; "+
			"use characters the file's encoding holds", subject, e.Rune, e.Rune, e.Encoding)
	case e.ByteOrderMark:
		where := ""
		if e.Line > 0 {
			where = fmt.Sprintf(" line %d", e.Line)
		}
		return fmt.Sprintf("the file starts with a %s byte-order mark, but%s is not valid %s; "+
			"fix the file or remove the mark", e.Encoding, where, e.Encoding)
	case e.Declared:
		return fmt.Sprintf("%s is not valid %s, the encoding the host declared for it; "+
			"it was left as it is. Check the declared encoding", subject, e.Encoding)
	}
	return fmt.Sprintf("%s is not valid %s; it was left as it is. "+
		"The host must declare the file's encoding before it can be patched", subject, e.Encoding)
}

// Codec turns a file's bytes into text and back without loss: a UTF-8 or UTF-16
// byte-order mark is kept, and a declared encoding is decoded and re-encoded.
type Codec struct {
	BOM []byte
	Enc encoding.Encoding // nil for UTF-8
	// name is shown in errors ("UTF-16LE", "ISO-8859-1", …).
	Name string
}

var (
	BOMUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// byteOrderMarks are the marks recognised at the start of a file, longest first.
var byteOrderMarks = []struct {
	bom  []byte
	enc  encoding.Encoding
	name string
}{
	{BOMUTF8, nil, "UTF-8"},
	{bomUTF16LE, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "UTF-16LE"},
	{bomUTF16BE, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "UTF-16BE"},
}

// ErrBinary is [Decode]'s refusal of a file that looks binary.
var ErrBinary = errors.New("the file looks binary")

// Decode reads raw bytes as text. declared is the host's encoding for the path (nil for
// none); a byte-order mark takes precedence over it. It refuses what it cannot round-trip
// byte for byte, with an *EncodingError, and a file with a NUL character with [ErrBinary].
func Decode(raw []byte, declared encoding.Encoding, declaredName string) (string, *Codec, error) {
	c := &Codec{Name: "UTF-8"}
	for _, m := range byteOrderMarks {
		if bytes.HasPrefix(raw, m.bom) {
			c = &Codec{BOM: m.bom, Enc: m.enc, Name: m.name}
			raw = raw[len(m.bom):]
			break
		}
	}
	isDeclared := c.BOM == nil && declared != nil && declared != unicode.UTF8
	if isDeclared {
		c = &Codec{Enc: declared, Name: declaredName}
	}
	if c.Enc == nil {
		if bytes.IndexByte(raw[:min(len(raw), BinaryProbe)], 0) >= 0 {
			return "", nil, ErrBinary
		}
		if !utf8.Valid(raw) {
			return "", nil, &EncodingError{Encoding: c.Name, Line: invalidUTF8Line(raw), ByteOrderMark: c.BOM != nil}
		}
		return shareString(raw), c, nil
	}
	dec, err := c.Enc.NewDecoder().Bytes(raw)
	if err != nil || !c.RoundTrips(dec, raw) {
		return "", nil, &EncodingError{Encoding: c.Name, Line: c.FirstBadLine(string(dec), raw),
			Declared: isDeclared, ByteOrderMark: c.BOM != nil}
	}
	if bytes.IndexByte(dec[:min(len(dec), BinaryProbe)], 0) >= 0 {
		return "", nil, ErrBinary
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

// RoundTrips reports whether text encodes back to exactly raw.
func (c *Codec) RoundTrips(text, raw []byte) bool {
	b, err := c.Enc.NewEncoder().Bytes(text)
	return err == nil && bytes.Equal(b, raw)
}

// FirstBadLine finds the first decoded line that does not encode back to the bytes at
// its place in raw: the line holding the first invalid byte sequence.
func (c *Codec) FirstBadLine(text string, raw []byte) int {
	off := 0
	for n := 1; text != ""; n++ {
		i := strings.IndexByte(text, '\n') + 1
		if i == 0 {
			i = len(text)
		}
		b, err := c.Enc.NewEncoder().Bytes([]byte(text[:i]))
		if err != nil || !bytes.HasPrefix(raw[off:], b) {
			return n
		}
		off, text = off+len(b), text[i:]
	}
	return 0
}

// Encode turns text back into the file's bytes. A character the encoding cannot hold is
// an *EncodingError, never a replacement.
func (c *Codec) Encode(s []byte) ([]byte, error) {
	if c.Enc == nil {
		if len(c.BOM) == 0 {
			return s, nil
		}
		return append(bytes.Clone(c.BOM), s...), nil
	}
	b, n, err := transform.Bytes(c.Enc.NewEncoder(), s)
	if err != nil {
		r, _ := utf8.DecodeRune(s[n:])
		return nil, &EncodingError{Encoding: c.Name, Line: bytes.Count(s[:n], []byte("\n")) + 1, Rune: r}
	}
	return append(bytes.Clone(c.BOM), b...), nil
}
