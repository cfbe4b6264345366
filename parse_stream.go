package applypatch

import (
	"strings"

	"github.com/applypatch/applypatch/internal/envelope"
)

// A Stream reads a payload while a model is still writing it, so that a front end can
// show the patch as it grows: [Stream.Patch] returns the operations complete so far,
// the section in progress with the hunks complete so far, and [Resolve] on it shows where
// each would land. [Stream.Close] returns exactly what [Parse] returns for the whole text.
// The zero Stream is ready to use. A Stream is not safe for concurrent use.
//
// A section is complete when the next section header or "*** End Patch" arrives, a hunk
// when the next "@@" hunk, "*** End of File", a header or the end does. The section in
// progress is read again as hunks complete, at most once per eighth of its length (or 4
// KiB), so a stream costs a small multiple of one Parse however it is split.
type Stream struct {
	text    strings.Builder
	scanned int // bytes of text read as whole lines
	lineNo  int // payload lines read
	ends    envelope.Ends
	begun   bool
	ended   bool
	// done are the complete sections; section the lines of the one in progress, and
	// current its operation as last read (nil before its first complete hunk).
	done    []Operation
	section []envelope.Line
	update  bool // the section in progress is an Update
	current *Operation
	readLen int // bytes of section when current was read
	secLen  int
	failed  bool // a complete section does not parse: Close says why
	read    int  // bytes of sections read, for the tests that bound the work
}

// streamReread is the least growth, in bytes, of the section in progress between two
// readings of it.
const streamReread = 4 << 10

// Write adds the next piece of the payload, which may end anywhere, even inside a line
// or a character. It never fails.
func (s *Stream) Write(p []byte) (int, error) {
	s.text.Write(p)
	text := s.text.String()
	for {
		i := strings.IndexByte(text[s.scanned:], '\n')
		if i < 0 {
			break
		}
		line := s.ends.Text(text[s.scanned : s.scanned+i])
		s.scanned += i + 1
		s.lineNo++
		s.line(envelope.Line{N: s.lineNo, Text: line})
	}
	return len(p), nil
}

// line takes one whole line of the payload.
func (s *Stream) line(l envelope.Line) {
	trimmed := strings.TrimSpace(l.Text)
	switch {
	case s.ended || s.failed:
	case !s.begun:
		s.begun = strings.TrimPrefix(trimmed, envelope.BOM) == envelope.Begin
	case trimmed == envelope.End:
		s.finishSection()
		s.ended = true
	case s.startsSection(l.Text):
		s.finishSection()
		s.section = append(s.section[:0:0], l)
		s.secLen = len(l.Text)
		kind, _, _ := header(trimmed)
		s.update = kind == OpUpdate
	case len(s.section) > 0:
		ends := s.endsHunk(l.Text)
		if ends && updateMarker(l.Text) != markerEOF {
			s.readCurrent() // "@@" opens the next hunk
		}
		s.section = append(s.section, l)
		s.secLen += len(l.Text) + 1
		if ends && updateMarker(l.Text) == markerEOF {
			s.readCurrent() // "*** End of File" is the hunk's own last line
		}
	}
}

// startsSection reports whether a line is a section header where it stands: inside an
// Update only a header at the start of the line is one, as the parser reads it.
func (s *Stream) startsSection(text string) bool {
	if len(s.section) > 0 && s.update {
		m := updateMarker(text)
		return m != "" && isHeaderLine(m)
	}
	return isHeaderLine(text)
}

// endsHunk reports whether a line of the section in progress completes a hunk: an "@@"
// line after a line of the hunk above it, or "*** End of File", the hunk's last line.
func (s *Stream) endsHunk(text string) bool {
	if !s.update || len(s.section) < 2 {
		return false
	}
	m := updateMarker(text)
	if m != "@@" && !strings.HasPrefix(m, "@@ ") && m != markerEOF {
		return false
	}
	last := s.section[len(s.section)-1].Text
	if strings.HasPrefix(last, "+++ ") && strings.HasPrefix(s.section[len(s.section)-2].Text, "--- ") && !s.hasHunk() {
		return false // a unified diff's file header lines, which the first "@@" shows to be such
	}
	return updateMarker(last) == "" // a hunk line, not an "@@" line of the same chain or a marker
}

// hasHunk reports whether the section in progress has a line of a hunk between its
// header and its last two: a line that is neither a marker nor blank. The header is
// none, indented or not.
func (s *Stream) hasHunk() bool {
	for _, l := range s.section[1:max(1, len(s.section)-2)] {
		if updateMarker(l.Text) == "" && strings.TrimSpace(l.Text) != "" {
			return true
		}
	}
	return false
}

// finishSection parses the section in progress, now complete.
func (s *Stream) finishSection() {
	if len(s.section) == 0 {
		return
	}
	s.read += s.secLen
	p := &parser{lines: s.section}
	if err := p.sections(); err != nil || len(p.patch.Ops) != 1 {
		s.failed = true
		return
	}
	s.done = append(s.done, p.patch.Ops[0])
	s.section, s.current = nil, nil
}

// readCurrent reads the Update in progress up to its last complete hunk, unless it grew
// too little since it was last read.
func (s *Stream) readCurrent() {
	if s.secLen-s.readLen < max(streamReread, s.readLen/8) && s.current != nil {
		return
	}
	s.read += s.secLen
	p := &parser{lines: s.section, partial: true}
	if err := p.sections(); err != nil || len(p.patch.Ops) != 1 {
		return
	}
	s.current, s.readLen = &p.patch.Ops[0], s.secLen
}

// Patch returns the operations complete so far: every complete section, then the Update
// in progress with its complete hunks once one of them changes something. It is nil
// before the first. Its operations are shared with later calls: do not modify them.
func (s *Stream) Patch() *Patch {
	ops := append([]Operation(nil), s.done...)
	if c := s.current; c != nil && len(s.section) > 0 && (c.MoveTo != "" || !allLocators(c.Hunks)) {
		ops = append(ops, *c)
	}
	if len(ops) == 0 {
		return nil
	}
	return &Patch{Ops: ops}
}

// Close ends the stream and returns what [Parse] returns for the whole payload.
func (s *Stream) Close() (*Patch, error) { return Parse(s.text.String()) }
