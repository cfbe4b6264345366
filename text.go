package applypatch

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
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

// text is a decoded file split into lines. Lines hold no terminators; eols holds each
// line's own terminator, so untouched lines are written back exactly (T2).
type text struct {
	lines []string
	eols  []eol
	// style is the terminator for inserted lines: the file's first one, LF if it has none.
	style eol
}

// binaryProbe is how much of a file is searched for a NUL byte (T1).
const binaryProbe = 8192

// splitText splits decoded content into lines. LF, CRLF and a lone CR each end a line; a
// final terminator does not start an extra empty line.
func splitText(s string) *text {
	if strings.IndexByte(s, '\r') < 0 {
		return splitLF(s)
	}
	n := strings.Count(s, "\n") + strings.Count(s, "\r") + 1
	t := &text{lines: make([]string, 0, n), eols: make([]eol, 0, n), style: eolLF}
	styled := false
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			t.lines, t.eols = append(t.lines, s), append(t.eols, eolNone)
			break
		}
		e, w := eolLF, 1
		if s[i] == '\r' {
			e = eolCR
			if i+1 < len(s) && s[i+1] == '\n' {
				e, w = eolCRLF, 2
			}
		}
		if !styled {
			t.style, styled = e, true
		}
		t.lines, t.eols = append(t.lines, s[:i]), append(t.eols, e)
		s = s[i+w:]
	}
	return t
}

// splitLF is splitText for content without a CR, the common case.
func splitLF(s string) *text {
	n := strings.Count(s, "\n") + 1
	t := &text{lines: make([]string, 0, n), eols: make([]eol, 0, n), style: eolLF}
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.lines, t.eols = append(t.lines, s), append(t.eols, eolNone)
			break
		}
		t.lines, t.eols = append(t.lines, s[:i]), append(t.eols, eolLF)
		s = s[i+1:]
	}
	return t
}

// codec turns a file's bytes into text and back without loss (T3): a UTF-8 or UTF-16
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

// decodeError says why a file's bytes could not be read as text.
type decodeError struct {
	reason string
}

func (e *decodeError) Error() string { return e.reason }

// decode reads raw bytes as text. declared is the host's encoding for the path (nil for
// none); a byte-order mark takes precedence over it. It refuses what it cannot round-trip.
func decode(raw []byte, declared encoding.Encoding, declaredName string) (string, *codec, error) {
	c := &codec{name: "UTF-8"}
	for _, m := range byteOrderMarks {
		if bytes.HasPrefix(raw, m.bom) {
			c = &codec{bom: m.bom, enc: m.enc, name: m.name}
			raw = raw[len(m.bom):]
			break
		}
	}
	if c.bom == nil && declared != nil {
		c = &codec{enc: declared, name: declaredName}
	}
	if c.enc == nil {
		if bytes.IndexByte(raw[:min(len(raw), binaryProbe)], 0) >= 0 {
			return "", nil, &decodeError{"the file looks binary (it has a NUL byte); only text files can be patched"}
		}
		if !utf8.Valid(raw) {
			return "", nil, &decodeError{"the file is not valid UTF-8; the host must declare its encoding before it can be patched"}
		}
		return string(raw), c, nil
	}
	s, err := c.enc.NewDecoder().Bytes(raw)
	if err != nil || !bytes.Equal(c.mustEncode(s), raw) {
		return "", nil, &decodeError{"the file is not valid " + c.name + "; it was left as it is"}
	}
	if strings.IndexByte(string(s[:min(len(s), binaryProbe)]), 0) >= 0 {
		return "", nil, &decodeError{"the file looks binary (it has a NUL character); only text files can be patched"}
	}
	return string(s), c, nil
}

// mustEncode encodes for a round-trip check; a failure returns nil, which never equals.
func (c *codec) mustEncode(s []byte) []byte {
	b, err := c.enc.NewEncoder().Bytes(s)
	if err != nil {
		return nil
	}
	return b
}

// encode turns text back into the file's bytes. A character the encoding cannot hold is
// an error, never a replacement (T3).
func (c *codec) encode(s []byte) ([]byte, error) {
	if c.enc == nil {
		if len(c.bom) == 0 {
			return s, nil
		}
		return append(bytes.Clone(c.bom), s...), nil
	}
	b, err := c.enc.NewEncoder().Bytes(s)
	if err != nil {
		return nil, &decodeError{"the result has a character that " + c.name + " cannot encode; use characters the file's encoding holds"}
	}
	return append(bytes.Clone(c.bom), b...), nil
}
