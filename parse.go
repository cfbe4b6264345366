package applypatch

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/applypatch/applypatch/internal/show"

	"github.com/applypatch/applypatch/internal/envelope"
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
// End marker, unknown headers, lines outside a section, and two operations on one path. A
// payload is UTF-8 text: a byte that is not UTF-8, or a NUL, is refused, its line named.
func Parse(payload string) (*Patch, error) {
	body, err := envelope.Open(payload)
	if err != nil {
		var e *envelope.Error
		errors.As(err, &e)
		return nil, &ParseError{Line: e.Line, Text: e.Text, Msg: e.Msg}
	}
	if findTextFault(payload) != nil { // one pass over the whole payload; lines only when it fails
		if err := checkText(body); err != nil {
			return nil, err
		}
	}
	p := &parser{lines: body.Lines, body: body}
	if err := p.sections(); err != nil {
		return nil, err
	}
	if len(p.patch.Ops) == 0 {
		return nil, p.errf(body.End, "the patch contains no operations; add at least one "+
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
	body  *envelope.Body // what the lines were opened from, for quoting them; nil in a Stream
	i     int
	patch Patch
	ended bool // a bare "@@" ended the current hunk's chain of "@@" lines
	// partial reads an Update whose end has not arrived yet (see Stream): what only the
	// whole section can say (it has hunks, one of them changes something) is not checked.
	partial bool
	// movedOntoItself is set when the Update being read had a Move to its own path.
	movedOntoItself bool
	// numbered holds the payload line of each hunk that a unified-diff header heads:
	// its numbers are only a hint, so its own lines must say where it goes.
	numbered map[int]bool
}

func (p *parser) more() bool { return p.i < len(p.lines) }

func (p *parser) peek() envelope.Line { return p.lines[p.i] }

// errf is the ParseError at l. At an envelope marker between the envelope's own markers,
// whatever the section expected, the fault is that the payload holds more than one patch.
func (p *parser) errf(l envelope.Line, format string, args ...any) error {
	if msg, ok := markerInside[strings.TrimSpace(l.Text)]; ok && len(p.lines) > 0 && l.N <= p.lines[len(p.lines)-1].N {
		return &ParseError{Line: l.N, Text: p.quote(l), Msg: msg}
	}
	return &ParseError{Line: l.N, Text: p.quote(l), Msg: fmt.Sprintf(format, args...)}
}

// quote is line l as the payload has it, for an error to quote.
func (p *parser) quote(l envelope.Line) string {
	if p.body == nil {
		return l.Text
	}
	return p.body.Quote(l)
}

// markerInside says what an envelope marker found between the envelope's own markers
// means: two patches sent as one payload.
var markerInside = map[string]string{
	envelope.End:   "'*** End Patch' ends the patch here, yet more follows; send one patch, with every section between one '*** Begin Patch' and one '*** End Patch'",
	envelope.Begin: "a second '*** Begin Patch' inside the patch; send one patch, with every section between one '*** Begin Patch' and one '*** End Patch'",
}

// checkText refuses a line of the payload's body that holds a byte no text file holds
// (see textFault). Section headers are left to the check of their path, which says
// more.
func checkText(body *envelope.Body) error {
	for _, l := range body.Lines {
		if _, _, ok := header(l.Text); ok { // its path is checked as a path; indented, it may be a context line
			continue
		}
		if f := findTextFault(l.Text); f != nil {
			return &ParseError{Line: l.N, Text: body.Quote(l), Msg: f.String()}
		}
	}
	return nil
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
		if bare, ok := quoted(target); ok {
			return p.errf(l, "the path is wrapped in quotes, which would be part of the file's name; write it bare: '%s %s'",
				strings.TrimSpace(strings.TrimSuffix(text, target)), bare)
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

// blankToEnd reports whether the lines from the current one up to end are all blank: the
// end of an Add section, before the next header or the end of the patch.
func (p *parser) blankToEnd(end int) bool {
	for j := p.i; j < end; j++ {
		if strings.TrimSpace(p.lines[j].Text) != "" {
			return false
		}
	}
	return true
}

// addBody reads the '+' lines of an Add: none makes an empty file.
func (p *parser) addBody(op *Operation) error {
	end := p.i // the body's lines are counted first, so they are kept in one allocation
	for end < len(p.lines) && (strings.HasPrefix(p.lines[end].Text, "+") || !isHeaderLine(p.lines[end].Text)) {
		end++
	}
	op.Lines = make([]string, 0, end-p.i)
	for ; p.i < end; p.i++ {
		l := p.lines[p.i]
		text, ok := strings.CutPrefix(l.Text, "+") // a line that starts with '+' is never a header
		if !ok && strings.TrimSpace(l.Text) == "" && p.blankToEnd(end) {
			return p.errf(l, "an empty line without '+' ends the Add File section: it is refused, since it may be a "+
				"separator or the file's last line; delete it if it separates sections, or write it as a lone '+' "+
				"for an empty last line")
		}
		if !ok {
			return p.errf(l, "every line of an Add File section must start with '+' (a lone '+' is an empty line)")
		}
		op.Lines = append(op.Lines, text)
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

// namesDir reports whether a payload path ends with a separator: a directory, which no
// operation can write (a model that meant a file inside it left out the file's name).
func namesDir(name string) bool {
	return strings.HasSuffix(name, "/") || strings.HasSuffix(name, "\\")
}

// cleanPath is the key two payload paths are compared by.
func cleanPath(name string) string { return path.Clean(strings.ReplaceAll(name, "\\", "/")) }

// checkPaths rejects two operations on one path, counting Move destinations, except a
// Delete followed by an Add of the same path, which rewrites it whole. The error names the
// header or Move line that repeats a path.
func (p *parser) checkPaths() error {
	claims := pathClaims{}
	for i := range p.patch.Ops {
		op := &p.patch.Ops[i]
		if prev, _, ok := claims.claim(op.Path, op.Line, op.Kind, false); !ok {
			return p.repeated(op.Line, prev)
		}
		// "*** Move to:" is always the line after the Update header.
		if op.MoveTo != "" {
			if prev, _, ok := claims.claim(op.MoveTo, op.Line, op.Kind, true); !ok {
				return p.repeated(op.Line+1, prev)
			}
		}
	}
	return nil
}

// repeated is the error of the payload line that names a path the section on line prev
// named.
func (p *parser) repeated(line, prev int) error {
	return p.errf(p.line(line),
		"the path is already touched by the section on line %d; put all changes to one file in one section", prev)
}

// pathClaims records, by cleaned path, the operation that first names each path of a
// patch, so that a second one is refused, except an Add after a Delete: a rewrite.
type pathClaims map[string]pathClaim

// A pathClaim is the operation that names a path: where it is (a payload line, or an
// index), its kind, and whether the path is its Move destination.
type pathClaim struct {
	at   int
	kind OpKind
	move bool
}

// claim records that the operation at at, of kind, names name (as its Move destination
// when move is set). When an earlier operation named it, it returns where that one is
// and repeat; ok says whether the path may be named again: an Add of a path a Delete (not
// a Move) named, once, which rewrites it.
func (pc pathClaims) claim(name string, at int, kind OpKind, move bool) (prev int, repeat, ok bool) {
	key := cleanPath(name)
	c, dup := pc[key]
	switch {
	case !dup:
		pc[key] = pathClaim{at: at, kind: kind, move: move}
		return 0, false, true
	case c.kind == OpDelete && !c.move && kind == OpAdd && !move:
		pc[key] = pathClaim{at: c.at} // rewritten: a third operation on the path is refused
		return c.at, true, true
	}
	return c.at, true, false
}

// rewrites pairs each Delete of ops that an Add of the same path follows with that Add,
// by their indexes: the two rewrite the file whole.
func rewrites(ops []Operation) map[int]int {
	claims, out := pathClaims{}, map[int]int{}
	for i := range ops {
		if prev, repeat, ok := claims.claim(ops[i].Path, i, ops[i].Kind, false); repeat && ok {
			out[prev] = i
		}
		if ops[i].MoveTo != "" {
			claims.claim(ops[i].MoveTo, i, ops[i].Kind, true)
		}
	}
	return out
}

// line returns the payload line numbered n, which lies between the envelope markers.
func (p *parser) line(n int) envelope.Line { return p.lines[n-p.lines[0].N] }

// A ParseError reports a payload that cannot be read or asks for more than the host's
// limits allow (Limits.Payload, Limits.Operations), or tool arguments that are not
// exactly {"patchText": PATCH}. Line is the 1-based line of the payload (as sent, wrapper
// included) and Text that line; Msg says what was wrong and which form was expected.
// Nothing is resolved or written when parsing fails.
//
// Test for it with errors.As, or with errors.As(err, new(*ParseError)).
type ParseError struct {
	Line int    // the 1-based payload line, 0 for the payload as a whole
	Text string // that line
	Msg  string // what was wrong, and the form expected

	args bool // the tool arguments around the payload, rather than the payload, are wrong
}

func (e *ParseError) Error() string {
	switch {
	case e.args:
		return show.Clip("invalid arguments: "+e.Msg, show.ErrorBudget)
	case e.Line == 0:
		return show.Clip("invalid patch: "+e.Msg, show.ErrorBudget)
	}
	return show.Clip(fmt.Sprintf("invalid patch: line %d %q: %s", e.Line, show.ClipLine(e.Text), e.Msg), show.ErrorBudget)
}

// argumentError reports tool arguments that are not exactly {"patchText": PATCH}.
func argumentError(msg string) *ParseError { return &ParseError{Msg: msg, args: true} }

// overLimit reports a payload, or the tool arguments or diff that carry one, with more of
// something than a limit allows.
func overLimit(what string, got, limit int, args bool) *ParseError {
	return &ParseError{Msg: fmt.Sprintf("%s, over the limit of %s; split the change into smaller patches",
		fmt.Sprintf(what, show.Thousands(got)), show.Thousands(limit)), args: args}
}
