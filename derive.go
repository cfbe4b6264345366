package applypatch

import (
	"bytes"
	"io"
	"slices"
	"unsafe"

	"github.com/applypatch/applypatch/internal/lines"
)

// Result returns the bytes the change leaves at its destination with the current
// selection: for an Add its content, for an Update or Move the baseline with the selected
// hunks applied, for a Delete nil. Results are always derived from the baseline, never
// patched incrementally.
func (c *change) result() ([]byte, error) { return c.derive() }

// derive computes the change's result bytes from its baseline and selected hunks.
func (c *change) derive() ([]byte, error) {
	if b, ok := c.restored(); ok {
		return b, nil
	}
	switch {
	case c.whole && !c.revisedSelection():
		return c.encodeLines(c.rewriteLines)
	case c.Op.Kind == OpAdd:
		return c.encodeLines(c.Op.Lines)
	case c.Op.Kind == OpDelete:
		return nil, nil
	}
	sel := c.selectedHunks()
	if len(sel) == 0 || c.text == nil {
		return c.Base.Bytes, nil
	}
	if c.derived.of(sel) {
		return c.derived.data, nil
	}
	s, err := applyHunks(c.text, sel)
	if err != nil {
		err.Path, err.Revision = c.Op.Path, c.revisedSelection()
		return nil, err
	}
	if c.unterminated {
		s = withoutFinalNewline(s)
	}
	out, encErr := c.codec.Encode(s)
	if encErr != nil {
		return nil, undecodable(c.Op.Path, encErr)
	}
	c.derived = derivedResult{hunks: hunkSet(sel), data: out}
	return out, nil
}

// content is the change's result for a write step. An Update of a UTF-8 text is derived
// from its baseline as it is written, so the commit holds the file once; any other
// result is derived and held, an Add's joined from its lines once, so that its journal
// sum, its temporary file and its history entry each take the bytes whole. Refusals
// are derive's.
func (c *change) content() (*content, error) {
	if b, ok := c.restored(); ok {
		return heldContent(b), nil
	}
	if c.Op.Kind == OpAdd && c.codec == nil {
		return &content{held: addContent(c.Op.Lines), added: c.Op.Lines}, nil
	}
	sel := c.selectedHunks()
	if c.whole || c.Op.Kind == OpAdd || c.Op.Kind == OpDelete || len(sel) == 0 || c.text == nil ||
		c.codec == nil || c.codec.Enc != nil || c.derived.of(sel) || c.unterminated {
		data, err := c.derive()
		return heldContent(data), err
	}
	regs := regionsInto(c.spare[:0], sel)
	c.spare = nil // the content keeps them
	if err := overlapping(regs); err != nil {
		err.Path, err.Revision = c.Op.Path, c.revisedSelection()
		return nil, err
	}
	return &content{t: c.text, regs: regs, bom: c.codec.BOM}, nil
}

// validate reports what derive would refuse, building the result only where finding it
// needs the result: an overlap of the selected hunks needs only their regions, a
// character the file's encoding cannot hold needs the encoded bytes. Resolve validates,
// and the result is built once, when a commit or a caller asks for it.
func (c *change) validate() error {
	if c.codec != nil && c.codec.Enc != nil {
		_, err := c.derive()
		return err
	}
	sel := c.selectedHunks()
	if len(sel) == 0 || c.text == nil {
		return nil
	}
	c.spare = regionsInto(c.spare[:0], sel)
	if err := overlapping(c.spare); err != nil {
		err.Path, err.Revision = c.Op.Path, c.revisedSelection()
		return err
	}
	return nil
}

// derivedResult remembers the last result derived and the hunks it applied, so that a
// caller's Result, a review and Commit's plan derive a large file once, not each time. Hunks are
// replaced, never edited in place, when a review changes them.
type derivedResult struct {
	hunks []*hunkChange
	data  []byte
}

// of reports whether the result was derived from exactly these hunks.
func (d derivedResult) of(sel []placedHunk) bool {
	return d.data != nil && slices.Equal(d.hunks, hunkSet(sel))
}

func hunkSet(sel []placedHunk) []*hunkChange {
	out := make([]*hunkChange, len(sel))
	for i, h := range sel {
		out[i] = h.hunkChange
	}
	return out
}

// addContent joins an Add's lines, each ending in a newline: no lines make an empty
// file, and a last empty line is a blank line.
func addContent(lines []string) []byte {
	var b bytes.Buffer
	b.Grow(addSize(lines))
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// placedHunk is a selected, changing hunk with its number among changing hunks.
type placedHunk struct {
	*hunkChange
	num int
}

// selectedHunks returns the selected changing hunks in baseline order. Among hunks that
// start on one line, '+'-only hunks (inserted before that line) come first, then payload
// order. A Move is indivisible: all its hunks go with it.
func (c *change) selectedHunks() []placedHunk {
	out := make([]placedHunk, 0, len(c.Hunks))
	num := 0
	for _, h := range c.Hunks {
		if h.isLocator() {
			continue
		}
		num++
		if c.applies(h) {
			out = append(out, placedHunk{h, num})
		}
	}
	slices.SortStableFunc(out, func(a, b placedHunk) int {
		if a.Place.Start != b.Place.Start {
			return a.Place.Start - b.Place.Start
		}
		return min(a.Place.Len, 1) - min(b.Place.Len, 1)
	})
	return out
}

// applyHunks builds the new text. Kept lines, context included, are copied from the file
// with their own terminators; inserted lines take the file's style; every line
// ends with a terminator. A hunk's context only placed it: what it changes is its
// region, from its first '-' or '+' line to its last. Regions may touch and context may
// be shared, but two hunks may not change the same lines, nor insert inside each other.
func applyHunks(t *lines.Text, hunks []placedHunk) ([]byte, *MatchError) {
	regs := regionsOf(hunks)
	if err := overlapping(regs); err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(make([]byte, 0, estimateSize(t, hunks)))
	writeResult(b, t, regs)
	return b.Bytes(), nil
}

// writeResult writes t with the regions, which do not overlap, applied, as applyHunks
// describes, and returns the first error of w; it stops writing there.
func writeResult(w io.Writer, t *lines.Text, regs []region) error {
	var err error
	put := func(s string) {
		if err == nil && s != "" {
			_, err = w.Write(unsafe.Slice(unsafe.StringData(s), len(s))) // writers only read it
		}
	}
	var last lines.EOL // the terminator written last
	end := func(line string, e lines.EOL) {
		put(line)
		e = unmerged(last, line, e)
		put(lines.EOLBytes[e])
		last = e
	}
	keep := func(lo, hi int) { // kept lines, copied as one run with their own terminators
		for lo < hi && unmerged(last, t.Line(lo), t.EOL(lo)) != t.EOL(lo) {
			// An empty line after a written lone CR, and each after it, which now
			// follows a CR too; past them, the run keeps its lines apart as the file does.
			end("", lines.EOLCR)
			lo++
		}
		if lo == hi {
			return
		}
		put(t.Raw(lo, hi))
		last = t.EOL(hi - 1)
		if last == lines.EOLNone {
			last = t.Style
			put(lines.EOLBytes[last])
		}
	}
	done := 0 // baseline lines emitted
	for _, r := range regs {
		keep(done, max(done, r.start)) // regions never overlap: r.start is at or after done
		done = max(done, r.start)
		for _, l := range r.ops {
			switch l.Kind {
			case LineContext:
				keep(done, done+1)
				done++
			case LineRemove:
				done++
			case LineAdd:
				end(l.Text, t.Style)
			}
		}
	}
	keep(done, t.Count())
	return err
}

// unmerged is the terminator of a line written after one that ended in last: its own,
// except that an empty line ending in LF after a lone CR would read back as one CRLF,
// losing the empty line, so it ends in a lone CR too.
func unmerged(last lines.EOL, line string, e lines.EOL) lines.EOL {
	if last == lines.EOLCR && line == "" && e == lines.EOLLF {
		return lines.EOLCR
	}
	return e
}

// A region is what one hunk changes: baseline lines [start, end) and the hunk's lines
// from its first change to its last.
type region struct {
	start, end int
	ops        []Line
	h          placedHunk
}

// regionsOf returns the hunks' regions in baseline order; an insertion comes before a
// change that starts on the same line.
func regionsOf(hunks []placedHunk) []region { return regionsInto(nil, hunks) }

// regionsInto is regionsOf appending to regs, which has room for them when its capacity
// suffices.
func regionsInto(regs []region, hunks []placedHunk) []region {
	regs = slices.Grow(regs, len(hunks))
	for _, h := range hunks {
		lines := h.Lines[:len(h.Lines)-h.Place.Trimmed]
		lead, trail := leadingContext(lines), trailingContext(lines)
		ops := lines[lead : len(lines)-trail]
		start := h.Place.Start + lead
		regs = append(regs, region{start: start, end: start + oldCount(ops), ops: ops, h: h})
	}
	slices.SortStableFunc(regs, func(a, b region) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return min(a.end-a.start, 1) - min(b.end-b.start, 1)
	})
	return regs
}

// overlapping reports two regions that change the same lines, an insertion inside
// another hunk's change, or two hunks inserting the same lines at one place, which is a
// hunk repeated by mistake (placed against the file as it was, both copies land there):
// no guess at what the model meant. Other insertions at one place keep the payload's
// order.
func overlapping(regs []region) *MatchError {
	for i := 1; i < len(regs); i++ {
		a, b := regs[i-1], regs[i]
		inserts := a.start == a.end && b.start == b.end && a.start == b.start && slices.Equal(a.ops, b.ops)
		if b.start < a.end || inserts {
			if b.h.Revised && !a.h.Revised { // name the hunk the person kept, not the one they derived
				a, b = b, a
			}
			end := max(a.end, a.start+1)
			if inserts {
				end = a.start
			}
			return &MatchError{Hunk: b.h.num, PayloadLine: b.h.Line, Reason: MatchOverlap,
				Other: a.h.num, Start: a.start + 1, End: end}
		}
	}
	return nil
}

// leadingContext counts the context lines that start a hunk; all of them when it has
// no change.
func leadingContext(lines []Line) int {
	n := 0
	for n < len(lines) && lines[n].Kind == LineContext {
		n++
	}
	return n
}

// trailingContext counts the context lines that end a hunk after its last change.
func trailingContext(lines []Line) int {
	n := 0
	for i := len(lines) - 1; i >= 0 && lines[i].Kind == LineContext; i-- {
		n++
	}
	return min(n, len(lines)-leadingContext(lines))
}

// oldCount counts the baseline lines a run of hunk lines covers: context and removed.
func oldCount(lines []Line) int {
	n := 0
	for _, l := range lines {
		if l.Kind != LineAdd {
			n++
		}
	}
	return n
}

// estimateSize is the result's size when no line ending grows: the text's own size plus
// the inserted lines.
func estimateSize(t *lines.Text, hunks []placedHunk) int {
	n := t.Len() + len(lines.EOLBytes[t.Style]) // room for a missing final newline
	for _, h := range hunks {
		for _, l := range h.Lines {
			if l.Kind == LineAdd {
				n += len(l.Text) + 2
			}
		}
	}
	return n
}

// encodeLines is the content of an Add's lines, or a whole rewrite's, in the encoding
// the host declared for the path, if any.
func (c *change) encodeLines(ls []string) ([]byte, error) {
	content := addContent(ls)
	if c.codec == nil {
		return content, nil
	}
	b, err := c.codec.Encode(content)
	if err != nil {
		return nil, undecodable(c.Op.Path, err)
	}
	return b, nil
}

// addSize is the byte size of an Add's content.
func addSize(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}
