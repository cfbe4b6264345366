package applypatch

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/applypatch/applypatch/internal/envelope"
)

// Payload markers and section headers.
const (
	markerEOF = "*** End of File"

	headerAdd    = "*** Add File: "
	headerUpdate = "*** Update File: "
	headerDelete = "*** Delete File: "
	headerMove   = "*** Move to: "
)

// validHeaders is shown to the reader of every error about a section header.
const validHeaders = "valid section headers are '*** Add File: PATH', '*** Update File: PATH' " +
	"(optionally followed by '*** Move to: PATH') and '*** Delete File: PATH'"

// Parse reads a payload: "*** Begin Patch", Add, Update (with optional Move) and Delete
// sections, "*** End Patch". It accepts the leniencies models need (surrounding whitespace
// on markers, a shell heredoc wrapper or a Markdown code fence around the envelope, CRLF,
// an Environment ID line, a dropped space on empty context lines, an omitted first "@@",
// several "@@ TEXT" lines in a row as one hunk's chain of anchors) and rejects everything
// that could apply something the model did not mean: prose around the envelope, a missing
// End marker, unknown headers, lines outside a section, and two operations on one path.
func Parse(payload string) (*Patch, error) {
	patch, err := parse(payload)
	if err == nil {
		rememberParsed(patch, payload)
	}
	return patch, err
}

// parse is Parse for a patch that never reaches a caller, which checkPatch need not
// know again (see ResolvePayload).
func parse(payload string) (*Patch, error) {
	body, end, err := envelope.Open(payload)
	if err != nil {
		var e *envelope.Error
		errors.As(err, &e)
		return nil, &ParseError{Line: e.Line, Text: e.Text, Msg: e.Msg}
	}
	p := &parser{lines: body}
	if err := p.sections(); err != nil {
		return nil, err
	}
	if len(p.patch.Ops) == 0 {
		return nil, p.errf(end, "the patch contains no operations; add at least one "+
			"'*** Add File:', '*** Update File:' or '*** Delete File:' section before it")
	}
	if err := p.checkPaths(); err != nil {
		return nil, err
	}
	patch := new(Patch) // not &p.patch, which would keep the payload's lines alive with it
	*patch = p.patch
	return patch, nil
}

// parser walks the lines between the envelope markers.
type parser struct {
	lines []envelope.Line
	i     int
	patch Patch
	ended bool // a bare "@@" ended the current hunk's chain of "@@" lines
	// numbered holds the payload line of each hunk that a unified-diff header heads:
	// its numbers are only a hint, so its own lines must say where it goes.
	numbered map[int]bool
}

func (p *parser) more() bool          { return p.i < len(p.lines) }
func (p *parser) peek() envelope.Line { return p.lines[p.i] }
func (p *parser) errf(l envelope.Line, format string, args ...any) error {
	return &ParseError{Line: l.N, Text: l.Text, Msg: fmt.Sprintf(format, args...)}
}

// sectionHeaders maps a header prefix to the kind of section it starts.
var sectionHeaders = []struct {
	prefix string
	kind   OpKind
}{{headerAdd, OpAdd}, {headerUpdate, OpUpdate}, {headerDelete, OpDelete}}

// header reads a section header from a trimmed line.
func header(text string) (OpKind, string, bool) {
	if !strings.HasPrefix(text, "***") { // every header does: most body lines stop here
		return "", "", false
	}
	for _, h := range sectionHeaders {
		if rest, ok := strings.CutPrefix(text, h.prefix); ok {
			return h.kind, strings.TrimSpace(rest), true
		}
		if strings.TrimSpace(text) == strings.TrimSpace(h.prefix) {
			return h.kind, "", true
		}
	}
	return "", "", false
}

// sections reads every section.
func (p *parser) sections() error {
	for p.more() {
		l := p.peek()
		text := strings.TrimSpace(l.Text)
		if text == "" {
			p.i++
			continue
		}
		kind, target, ok := header(text)
		if !ok {
			return p.notAHeader(l, text)
		}
		if target == "" {
			return p.errf(l, "the section header names no path; write it as '%sPATH'", strings.TrimSpace(text)+" ")
		}
		if msg := pathProblem(target); msg != "" {
			return p.errf(l, "%s", msg)
		}
		if namesDir(target) {
			return p.errf(l, "the path ends with a slash, so it names a directory; name the file, e.g. '%sNAME'", target)
		}
		p.i++
		op := Operation{Kind: kind, Path: target, Line: l.N}
		var err error
		switch kind {
		case OpAdd:
			err = p.addBody(&op)
		case OpDelete:
			err = p.deleteBody(&op)
		case OpUpdate:
			err = p.updateBody(&op)
		}
		if err != nil {
			return err
		}
		p.patch.Ops = append(p.patch.Ops, op)
	}
	return nil
}

// notAHeader explains a line where a section header was expected.
func (p *parser) notAHeader(l envelope.Line, text string) error {
	switch {
	case strings.HasPrefix(text, "*** "):
		return p.errf(l, "unknown header; %s", validHeaders)
	case strings.HasPrefix(text, "+"), strings.HasPrefix(text, "-"), strings.HasPrefix(text, "@@"):
		return p.errf(l, "a hunk line outside any section; start the section with a header first (%s)", validHeaders)
	}
	return p.errf(l, "expected a section header; %s", validHeaders)
}

// addBody reads the '+' lines of an Add: none makes an empty file.
func (p *parser) addBody(op *Operation) error {
	op.Lines = []string{}
	for p.more() {
		l := p.peek()
		if isHeaderLine(l.Text) {
			return nil
		}
		text, ok := strings.CutPrefix(l.Text, "+")
		if !ok {
			return p.errf(l, "every line of an Add File section must start with '+' (a lone '+' is an empty line)")
		}
		op.Lines = append(op.Lines, text)
		p.i++
	}
	return nil
}

// isHeaderLine reports whether a line (trimmed) starts a new section.
func isHeaderLine(text string) bool {
	_, _, ok := header(strings.TrimSpace(text))
	return ok
}

// deleteBody checks that nothing but blank lines follows a Delete header.
func (p *parser) deleteBody(op *Operation) error {
	for p.more() {
		l := p.peek()
		if isHeaderLine(l.Text) {
			return nil
		}
		if strings.TrimSpace(l.Text) != "" {
			return p.errf(l, "a Delete File section has no body; remove this line, or start a new section")
		}
		p.i++
	}
	return nil
}

// updateMarker reads a marker inside an Update body: trailing whitespace is tolerated,
// leading is not, so an indented marker stays a context line.
func updateMarker(text string) string {
	if strings.HasPrefix(text, "*** ") || strings.HasPrefix(text, "@@") {
		return strings.TrimRight(text, " \t")
	}
	return ""
}

// updateBody reads an Update: an optional Move, then hunks.
func (p *parser) updateBody(op *Operation) error {
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
			if namesDir(op.MoveTo) {
				return p.errf(l, "the destination ends with a slash, so it names a directory; name the file, e.g. '%s%s'",
					op.MoveTo, path.Base(cleanPath(op.Path)))
			}
			if cleanPath(op.MoveTo) == cleanPath(op.Path) { // a move onto itself is a plain update
				op.MoveTo = ""
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
	if len(op.Hunks) == 0 && op.MoveTo == "" {
		return p.errf(hdr, "the Update File section has no hunks; add '@@' hunks with '-'/'+' lines, or remove the section")
	}
	for i := range op.Hunks {
		if h := &op.Hunks[i]; p.numbered[h.Line] && len(h.oldLines()) == 0 {
			return p.errf(p.line(h.Line), "this hunk has only '+' lines, so only its unified-diff line numbers "+
				"would say where it goes, and they are not trusted alone; add the context lines around it, "+
				"or name the line above it with '@@ TEXT'")
		}
	}
	if op.MoveTo == "" && allLocators(op.Hunks) {
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

// hintText is a line hint: a positive integer without leading zeros.
var hintText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[1-9][0-9]*$`) })

// unifiedHeader recognises a unified diff's "-a,b +c,d @@ TEXT" after the leading "@@ ":
// the old start line, then the text after the closing "@@".
var unifiedHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$`)
})

// hunkHeader reads "@@", "@@ ANCHOR" or "@@ N".
// A unified-diff header ("@@ -12,5 +12,6 @@ TEXT") is read as a line hint for its old
// start line and an anchor for its text: numbered reports it.
func (p *parser) hunkHeader(l envelope.Line, m string) (h Hunk, numbered bool, err error) {
	h = Hunk{Line: l.N}
	rest, _ := strings.CutPrefix(m, "@@")
	rest = strings.TrimPrefix(rest, " ")
	if u := unifiedHeader().FindStringSubmatch(rest); u != nil {
		if h.Hint, err = strconv.Atoi(u[1]); err != nil {
			return h, true, p.errf(l, "the unified-diff line number is too large; write '@@' alone or '@@ TEXT' naming a line above the hunk")
		}
		h.Anchor = strings.TrimPrefix(u[2], " ")
		return h, true, nil
	}
	switch {
	case rest == "":
	case hintText().MatchString(rest):
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

// badUpdateLine explains a line an Update body cannot hold.
func (p *parser) badUpdateLine(l envelope.Line, m string) error {
	if strings.HasPrefix(m+" ", headerMove) {
		return p.errf(l, "'*** Move to:' must come directly after the '*** Update File:' line, before the first hunk")
	}
	if strings.HasPrefix(m, "*** ") {
		return p.errf(l, "unknown header inside an Update File section; %s", validHeaders)
	}
	if strings.HasPrefix(m, "@@") {
		return p.errf(l, "a hunk header is '@@' or '@@ TEXT' (with one space)")
	}
	return p.errf(l, "every line of an Update hunk must start with ' ' (context), '-' (removed) or '+' (added)")
}

// namesDir reports whether a payload path ends with a separator: a directory, which no
// operation can write (a model that meant a file inside it left out the file's name).
func namesDir(name string) bool {
	return strings.HasSuffix(name, "/") || strings.HasSuffix(name, "\\")
}

// cleanPath is the key two payload paths are compared by.
func cleanPath(name string) string { return path.Clean(strings.ReplaceAll(name, "\\", "/")) }

// checkPaths rejects two operations on one path, counting Move destinations. The
// error names the header or Move line that repeats a path.
func (p *parser) checkPaths() error {
	seen := map[string]int{}
	claim := func(op *Operation, name string, line int) error {
		key := cleanPath(name)
		if prev, dup := seen[key]; dup {
			return p.errf(p.line(line),
				"the path is already touched by the section on line %d; put all changes to one file in one section", prev)
		}
		seen[key] = op.Line
		return nil
	}
	for i := range p.patch.Ops {
		op := &p.patch.Ops[i]
		if err := claim(op, op.Path, op.Line); err != nil {
			return err
		}
		// "*** Move to:" is always the line after the Update header.
		if op.MoveTo != "" {
			if err := claim(op, op.MoveTo, op.Line+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// line returns the payload line numbered n, which lies between the envelope markers.
func (p *parser) line(n int) envelope.Line { return p.lines[n-p.lines[0].N] }
