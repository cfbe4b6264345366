package history

import (
	"bytes"
	"errors"
	"unsafe"
)

// A Span is where an added file's bytes lie in the entry's payload: the bytes
// [Off, End) of the payload are whole lines, each starting with '+' and ending with a
// LF, and the file holds each of them without its '+'. That is how an Add File section
// spells its file, so a commit that adds files keeps their bytes once, in the payload
// the entry holds anyway, rather than a second time beside it.
type Span struct {
	Off int64 `json:"off"`
	End int64 `json:"end"`
}

// SpanOf finds lines, the lines of a file an Add File section adds (each without its
// '+' and its LF), in payload, and reports whether the bytes they make, each line
// followed by a LF, are exactly what the payload's span says. A line is looked for
// where it lies in memory first: a line cut from payload itself is found there without
// its bytes being compared, any other is compared with the payload's bytes where it
// must lie. A payload rewritten before it was parsed (CRLF ends, indentation taken
// away) does not hold the file's lines that way, and the file keeps its own bytes.
func SpanOf(payload string, lines []string) (Span, bool) {
	anchor, at := -1, int64(0)
	for i, l := range lines {
		if off, ok := offsetIn(payload, l); ok {
			anchor, at = i, off
			break
		}
	}
	if anchor < 0 {
		return Span{}, false // no line to anchor the span on (none, or all empty)
	}
	pos := at - 1 // the '+' of the anchor line
	for i := anchor - 1; i >= 0; i-- {
		pos -= int64(len(lines[i])) + 2
	}
	sp := Span{Off: pos}
	for _, l := range lines {
		end := pos + 1 + int64(len(l))
		if pos < 0 || end >= int64(len(payload)) || payload[pos] != '+' || payload[end] != '\n' {
			return Span{}, false
		}
		if off, ok := offsetIn(payload, l); (!ok || off != pos+1) && payload[pos+1:end] != l {
			return Span{}, false // a line the payload does not hold at that place
		}
		pos = end + 1
	}
	sp.End = pos
	return sp, true
}

// offsetIn is where s lies in payload's memory, when it is a part of it that is not
// empty.
func offsetIn(payload, s string) (int64, bool) {
	if s == "" || payload == "" {
		return 0, false
	}
	p, q := stringAddr(payload), stringAddr(s)
	if q < p || q+uintptr(len(s)) > p+uintptr(len(payload)) {
		return 0, false
	}
	return int64(q - p), true
}

// stringAddr is where s's bytes lie in memory.
func stringAddr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// errSpan is a span that does not name lines of the payload an Add File section adds.
var errSpan = errors.New("the history names a part of its patch for an added file that is no Add section's lines")

// within reports whether the span lies in a payload of n bytes.
func (sp Span) within(n int64) bool { return 0 <= sp.Off && sp.Off <= sp.End && sp.End <= n }

// lines is the file the span names in payload: each line of payload[Off:End] without
// its first byte, which must be a '+'; each line must end with a LF.
func (sp Span) lines(payload []byte) ([]byte, error) {
	if !sp.within(int64(len(payload))) {
		return nil, errSpan
	}
	src := payload[sp.Off:sp.End]
	out := make([]byte, 0, len(src))
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 || src[0] != '+' {
			return nil, errSpan
		}
		out = append(out, src[1:i+1]...)
		src = src[i+1:]
	}
	return out, nil
}

// Added returns the bytes of an added file kept as a Span of the entry's payload,
// checked against the size and CRC-32C its state records.
func (s *Store) Added(e *Entry, st State) ([]byte, error) {
	if st.Payload == nil {
		return nil, errSpan
	}
	payload, err := s.raw(e, e.PayloadBlob)
	if err != nil {
		return nil, err
	}
	out, err := st.Payload.lines(payload)
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != st.Size || Checksum(out) != st.CRC {
		return nil, errors.New("the history cannot rebuild a file the change added: its record does not match")
	}
	return out, nil
}
