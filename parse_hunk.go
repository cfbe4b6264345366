package applypatch

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/applypatch/applypatch/internal/envelope"
)

// updateMarker reads a marker inside an Update body: trailing whitespace is tolerated,
// leading is not, so an indented marker stays a context line. It is asked of every line
// of a body up to three times (see hunksAhead and linesAhead), so a line that cannot be
// a marker is told by its first byte, and a marker's blanks are trimmed without the set
// strings.TrimRight makes of its cutset at each call.
func updateMarker(text string) string {
	if text == "" || (text[0] != '*' && text[0] != '@') {
		return ""
	}
	if !strings.HasPrefix(text, "*** ") && !strings.HasPrefix(text, "@@") {
		return ""
	}
	end := len(text)
	for end > 0 && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	return text[:end]
}

// updateBody reads an Update: an optional Move, then hunks.
func (p *parser) updateBody(op *Operation) error {
	p.movedOntoItself = false
	if p.more() {
		l := p.peek()
		if m := updateMarker(l.Text); strings.HasPrefix(m+" ", headerMove) {
			op.MoveTo = strings.TrimSpace(strings.TrimPrefix(m, strings.TrimSpace(headerMove)))
			if op.MoveTo == "" {
				return p.errf(l, "'*** Move to:' names no path; write it as '*** Move to: PATH'")
			}
			if msg := pathProblem(op.MoveTo); msg != "" {
				return p.errf(l, "the destination: %s", msg)
			}
			if bare, ok := quoted(op.MoveTo); ok {
				return p.errf(l, "the destination is wrapped in quotes, which would be part of the file's name; write it bare: '*** Move to: %s'", bare)
			}
			if namesDir(op.MoveTo) {
				return p.errf(l, "the destination ends with a slash, so it names a directory; name the file, e.g. '%s%s'",
					op.MoveTo, path.Base(cleanPath(op.Path)))
			}
			if cleanPath(op.MoveTo) == cleanPath(op.Path) { // a move onto itself is a plain update
				op.MoveTo, p.movedOntoItself = "", true
			}
			p.i++
		}
	}
	var cur *Hunk
	closed := true // no open hunk: the next body line needs "@@" (except for the first hunk)
	if n := p.hunksAhead(); n > 0 {
		op.Hunks = make([]Hunk, 0, n)
	}
	for p.more() {
		l := p.peek()
		m := updateMarker(l.Text)
		switch {
		case m != "" && isHeaderLine(m):
			return p.endUpdate(op, cur)
		case m == markerEOF:
			if cur == nil { // before the first hunk: ignored
				p.i++
				continue
			}
			if len(cur.Lines) == 0 {
				return p.errf(l, "the hunk before '*** End of File' has no lines; give it context, '-' or '+' lines")
			}
			cur.EOF, closed = true, true
		case m == "@@" || strings.HasPrefix(m, "@@ "):
			h, numbered, err := p.hunkHeader(l, m)
			if err != nil {
				return err
			}
			if cur != nil && len(cur.Lines) == 0 { // "@@" lines in a row: one hunk's chain
				if err := p.chain(cur, h, l); err != nil {
					return err
				}
				p.number(cur.Line, numbered)
				break
			}
			p.number(h.Line, numbered)
			op.Hunks = append(op.Hunks, h)
			cur, closed, p.ended = &op.Hunks[len(op.Hunks)-1], false, false
			cur.Lines = make([]Line, 0, p.linesAhead(p.i+1))
		case m != "":
			return p.badUpdateLine(l, m)
		case cur == nil && p.fileHeaders(op):
			p.i += 2 // a unified diff's "--- a/x" and "+++ b/x": the section's header names the file
			continue
		case cur != nil && !closed && strings.HasPrefix(l.Text, `\`):
			p.i++ // "\ No newline at end of file": a final newline follows the file's rule
			continue
		default:
			if closed && cur != nil {
				if strings.TrimSpace(l.Text) == "" { // blank lines after "*** End of File"
					p.i++
					continue
				}
				return p.errf(l, "a new hunk must start with '@@' (or '@@ TEXT') after '*** End of File'")
			}
			if cur == nil && l.Text == "" && p.markerAhead() { // a separator, not a hunk
				p.i++
				continue
			}
			if cur == nil { // the first hunk may omit its "@@"
				op.Hunks = append(op.Hunks, Hunk{Line: l.N, Lines: make([]Line, 0, p.linesAhead(p.i))})
				cur, closed = &op.Hunks[0], false
			}
			ln, err := p.hunkLine(l)
			if err != nil {
				return err
			}
			if len(cur.Lines) == 0 && addsHeader(ln) {
				return p.errf(l, "the hunk's first line adds a line that reads as a hunk header, which would be written "+
					"into the file; write the header without the '+' (%q), or, for a file that is to hold this line, put "+
					"a context line above it", ln.Text)
			}
			cur.Lines = append(cur.Lines, ln)
		}
		p.i++
	}
	return p.endUpdate(op, cur)
}

// hunksAhead counts the "@@" lines before the next section header: room for the
// Update's hunks, so that they are not copied as they are read.
func (p *parser) hunksAhead() int {
	n := 0
	for _, l := range p.lines[p.i:] {
		switch m := updateMarker(l.Text); {
		case m != "" && isHeaderLine(m):
			return n
		case strings.HasPrefix(m, "@@"):
			n++
		}
	}
	return n
}

// linesAhead counts the lines from line i to the next marker: room for a hunk's lines.
func (p *parser) linesAhead(i int) int {
	n := 0
	for _, l := range p.lines[i:] {
		if updateMarker(l.Text) != "" {
			break
		}
		n++
	}
	return n
}

// markerAhead reports whether the bare empty lines from the current one end at a marker
// ("@@", "*** End of File", a header) or at the end of the body. Before the first hunk
// such lines separate the header from the hunks; read as a hunk of empty context lines
// they would be a locator that a file with blank lines makes ambiguous.
func (p *parser) markerAhead() bool {
	for j := p.i; j < len(p.lines); j++ {
		if t := p.lines[j].Text; t != "" {
			return updateMarker(t) != ""
		}
	}
	return true
}

// endUpdate validates an Update when its body ends.
func (p *parser) endUpdate(op *Operation, cur *Hunk) error {
	hdr := p.line(op.Line)
	if cur != nil && len(cur.Lines) == 0 {
		return p.errf(p.line(cur.Line), "this hunk has no lines; give it context, '-' or '+' lines, or remove it")
	}
	if len(op.Hunks) == 0 && op.MoveTo == "" && !p.partial && p.movedOntoItself {
		return p.errf(hdr, "the '*** Move to:' destination is the file's own path, and the section has no hunks, so it "+
			"changes nothing; remove the section, or name another destination")
	}
	if len(op.Hunks) == 0 && op.MoveTo == "" && !p.partial {
		return p.errf(hdr, "the Update File section has no hunks; add '@@' hunks with '-'/'+' lines, or remove the section")
	}
	for i := range op.Hunks {
		if h := &op.Hunks[i]; p.numbered[h.Line] && len(h.oldLines()) == 0 {
			return p.errf(p.line(h.Line), "this hunk has only '+' lines, so only its unified-diff line numbers "+
				"would say where it goes, and they are not trusted alone; add the context lines around it, "+
				"or name the line above it with '@@ TEXT'")
		}
	}
	if op.MoveTo == "" && allLocators(op.Hunks) && !p.partial {
		return p.errf(hdr, "every hunk of this Update is context only, so it changes nothing; add '-'/'+' lines or remove the section")
	}
	return nil
}

func allLocators(hs []Hunk) bool {
	for i := range hs {
		if !hs[i].isLocator() {
			return false
		}
	}
	return true
}

// isHint reports whether s is a line hint: a positive integer without leading zeros.
func isHint(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// unifiedHeader recognises a unified diff's "-a,b +c,d @@ TEXT" after the leading "@@ ":
// the old start line, then the text after the closing "@@". It is compiled on first use,
// and unified reaches it only for text that begins as such a header does: most payloads
// never need it, and a process that applies one payload spares the compilation.
var unifiedHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$`)
})

// unified is unifiedHeader's submatches of s, nil where s is no such header.
func unified(s string) []string {
	if !strings.HasPrefix(s, "-") {
		return nil
	}
	return unifiedHeader().FindStringSubmatch(s)
}

// hunkHeader reads "@@", "@@ ANCHOR" or "@@ N".
// A unified-diff header ("@@ -12,5 +12,6 @@ TEXT") is read as a line hint for its old
// start line and an anchor for its text: numbered reports it.
func (p *parser) hunkHeader(l envelope.Line, m string) (h Hunk, numbered bool, err error) {
	h = Hunk{Line: l.N}
	rest, _ := strings.CutPrefix(m, "@@")
	rest = strings.TrimPrefix(rest, " ")
	if u := unified(rest); u != nil {
		if h.Hint, err = strconv.Atoi(u[1]); err != nil {
			return h, true, p.errf(l, "the unified-diff line number is too large; write '@@' alone or '@@ TEXT' naming a line above the hunk")
		}
		h.Anchor = strings.TrimPrefix(u[2], " ")
		if h.Anchor != "" && (isHint(h.Anchor) || unified(h.Anchor) != nil) {
			return h, true, p.errf(l, "the text after the unified-diff header, %q, would read as a line hint or "+
				"another header, not as the line above the hunk; drop it", h.Anchor)
		}
		return h, true, nil
	}
	switch {
	case rest == "":
	case isHint(rest):
		n, err := strconv.Atoi(rest)
		if err != nil {
			return h, false, p.errf(l, "the line hint is too large; use '@@ N' with N a line number of the file, or drop the hint")
		}
		h.Hint = n
	default:
		h.Anchor = rest
	}
	return h, false, nil
}

// number records that the hunk headed at payload line n has a unified-diff header.
func (p *parser) number(n int, numbered bool) {
	if !numbered {
		return
	}
	if p.numbered == nil {
		p.numbered = map[int]bool{}
	}
	p.numbered[n] = true
}

// hunkLine reads one ' ', '-' or '+' line; a bare empty line is empty context.
func (p *parser) hunkLine(l envelope.Line) (Line, error) {
	if l.Text == "" {
		return Line{Kind: LineContext}, nil
	}
	switch k := LineKind(l.Text[0]); k {
	case LineContext, LineRemove, LineAdd:
		return Line{Kind: k, Text: l.Text[1:]}, nil
	}
	return Line{}, p.badUpdateLine(l, l.Text)
}

// fileHeaders reports whether the current line and the next are a unified diff's file
// header lines ("--- a/x", "+++ b/x") directly before the first "@@" of a section, each
// naming the section's file (or /dev/null). Lines that name another file are a removed
// line starting "-- " and an added one starting "++ ", and stay so.
func (p *parser) fileHeaders(op *Operation) bool {
	if p.i+2 >= len(p.lines) {
		return false
	}
	at := p.lines[p.i : p.i+3]
	return diffHeader(at[0].Text, "--- ", op) && diffHeader(at[1].Text, "+++ ", op) && strings.HasPrefix(at[2].Text, "@@")
}

// diffHeader reports whether line is a unified diff's file header with prefix ("--- " or
// "+++ ") that names op's file: by its path, with or without git's a/ or b/, or by its
// base name (a diff made from another directory), or /dev/null; a tab and a timestamp
// may follow the name.
func diffHeader(line, prefix string, op *Operation) bool {
	name, ok := strings.CutPrefix(line, prefix)
	if !ok {
		return false
	}
	name, _, _ = strings.Cut(name, "\t")
	name = strings.TrimSpace(name)
	if name == "/dev/null" {
		return true
	}
	for _, p := range []string{op.Path, op.MoveTo} {
		if p != "" && path.Base(cleanPath(name)) == path.Base(cleanPath(p)) {
			return true
		}
	}
	return false
}

// badUpdateLine explains a line an Update body cannot hold.
func (p *parser) badUpdateLine(l envelope.Line, m string) error {
	if strings.HasPrefix(m+" ", headerMove) {
		return p.errf(l, "'*** Move to:' must come directly after the '*** Update File:' line, before the first hunk")
	}
	if strings.HasPrefix(m, "*** ") {
		return p.errf(l, "unknown header inside an Update File section; %s", validHeaders)
	}
	if strings.HasPrefix(m, "@@") {
		return p.errf(l, "a hunk header is '@@' or '@@ TEXT' (with one space); a line of the file that starts "+
			"with '@@' is sent with its leading ' ' (context) or '-'")
	}
	return p.errf(l, "every line of an Update hunk must start with ' ' (context), '-' (removed) or '+' (added)")
}

// chain adds the "@@" line h to the hunk cur that an "@@" line directly above opened:
// an anchor joins the chain below cur's anchors and a line hint is kept. A bare "@@"
// after anchors or a hint ends the chain (the hunk's lines follow it), and anchors after
// a bare "@@" that opened the hunk start it, as the OpenAI Agents SDKs read both; any
// other bare "@@", or an "@@" line after the chain ended, opens a hunk of its own, so the
// one above has no lines.
func (p *parser) chain(cur *Hunk, h Hunk, l envelope.Line) error {
	bare, curBare := h.Hint == 0 && h.Anchor == "", cur.Hint == 0 && cur.Anchor == ""
	switch {
	case bare && !curBare && !p.ended:
		p.ended = true
	case curBare && !bare && !p.ended:
		// a bare "@@" then anchors: the bare line only opened the hunk, which the anchors
		// name, as the OpenAI Agents SDKs read it
	case bare || curBare || p.ended:
		return p.errf(l, "the previous '@@' hunk has no lines; give every hunk context, '-' or '+' lines")
	case h.Hint > 0 && cur.Hint > 0:
		return p.errf(l, "the hunk already has the line hint '@@ %d'; give a hunk at most one '@@ N' line", cur.Hint)
	}
	if h.Hint > 0 {
		cur.Hint = h.Hint
	}
	if h.Anchor != "" {
		if cur.Anchor != "" {
			cur.Within = append(cur.Within, cur.Anchor)
		}
		cur.Anchor = h.Anchor
	}
	if len(cur.Within)+1 > maxChain {
		return p.errf(l, "the hunk's chain names more than %d anchors; name the enclosing lines that tell its place, "+
			"at most %d, from the outermost in", maxChain, maxChain)
	}
	return nil
}

// maxChain is the most '@@ TEXT' anchors one hunk's chain names: deeper than any nesting
// of code needs, and a bound on the work of placing it, which grows with the anchors
// times the lines each names.
const maxChain = 16
