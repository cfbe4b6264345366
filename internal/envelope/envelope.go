// Package envelope finds the "*** Begin Patch" … "*** End Patch" envelope in what a model
// sent: it allows surrounding blank lines, a shell heredoc wrapper, a Markdown code fence
// and CRLF line ends, and keeps each line's payload number for the errors that quote it.
//
// It never reads inside the envelope: sections and hunks are the parser's, and anything
// it cannot tell apart from prose around the patch it refuses rather than guesses.
package envelope

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The envelope's markers.
const (
	Begin         = "*** Begin Patch"
	End           = "*** End Patch"
	EnvironmentID = "*** Environment ID:"
	// BOM is a byte order mark, which a payload read from a file may start with, and
	// which a line copied from the top of a file with one may start with too.
	BOM = "\uFEFF"
)

// Line is one line of the payload with its 1-based number, the CRs before its LF removed.
// A payload of megabytes has a Line for every few dozen bytes, so it holds nothing else:
// what the envelope took away from the line is kept once, on the Body.
type Line struct {
	N    int
	Text string
}

// A Body is what Open found: the lines between the envelope's markers, the End line,
// and what it took away from them.
type Body struct {
	Lines []Line
	End   Line
	// indent is the indentation dedent took away from every line, and short holds, by
	// line number, a blank line shorter than it as the payload has it.
	indent string
	short  map[int]string
}

// Quote is line l, one of the body's, as the payload has it, for an error to quote.
func (b *Body) Quote(l Line) string {
	if raw, ok := b.short[l.N]; ok {
		return raw
	}
	return b.indent + l.Text
}

// split splits on LF, dropping the CRs before each LF (see Ends). A lone CR inside a
// line is not a line break in a payload.
func split(s string) []Line {
	out := make([]Line, 0, strings.Count(s, "\n")+1)
	var ends Ends
	for n := 1; ; n++ {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, Line{N: n, Text: ends.Text(s)})
		}
		out = append(out, Line{N: n, Text: ends.Text(s[:i])})
		s = s[i+1:]
	}
}

// Ends reads the line ends of a payload, line by line: the "*** Begin Patch" line's
// says whether the payload was converted to CRLF once (one CR before each LF) or twice
// (two), and the lines before it are a wrapper's, whose CRs are all dropped.
type Ends struct {
	begun, twice bool
}

// Text is a payload line's text, given the line before its LF: without the CR of a
// CRLF payload, and, in a payload converted twice, without every CR there, none of
// which is the line's. A line of a CRLF payload whose text ends in CR keeps it (Format
// writes such a patch that way).
func (e *Ends) Text(raw string) string {
	if !e.begun {
		text := strings.TrimRight(raw, "\r")
		if strings.TrimSpace(strings.TrimPrefix(text, BOM)) == Begin {
			e.begun, e.twice = true, strings.HasSuffix(raw, "\r\r")
		}
		return text
	}
	if e.twice {
		return strings.TrimRight(raw, "\r")
	}
	return strings.TrimSuffix(raw, "\r")
}

// trimBlank drops blank lines at both ends.
func trimBlank(lines []Line) []Line {
	for len(lines) > 0 && strings.TrimSpace(lines[0].Text) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1].Text) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// heredocOpen matches the first line of a heredoc wrapper: optional "cat " or
// "apply_patch ", then <<WORD, <<'WORD', <<"WORD" (and the <<- form). Like every
// pattern of the envelope, it is compiled on first use and asked only about a line that
// holds what each of its matches must (here "<<"), so a payload sent bare compiles none.
var heredocOpen = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:cat|apply_patch)\s+)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)
})

// opensHeredoc is heredocOpen's submatches of a line, nil where it opens no heredoc.
func opensHeredoc(text string) []string {
	if !strings.Contains(text, "<<") {
		return nil
	}
	return heredocOpen().FindStringSubmatch(strings.TrimSpace(text))
}

// unwrapHeredoc strips a shell heredoc wrapper.
func unwrapHeredoc(lines []Line) ([]Line, error) {
	lines = trimBlank(lines)
	if len(lines) == 0 {
		return nil, &Error{Msg: "the payload is empty; send '*** Begin Patch', the sections, then '*** End Patch'"}
	}
	first := lines[0]
	m := opensHeredoc(first.Text)
	if m == nil {
		return lines, nil
	}
	if m[1] != m[3] {
		return nil, &Error{Line: first.N, Text: first.Text,
			Msg: "the heredoc delimiter's quotes do not match; send the patch without the shell wrapper"}
	}
	last := lines[len(lines)-1]
	if len(lines) < 2 || strings.TrimSpace(last.Text) != m[2] {
		return nil, &Error{Line: last.N, Text: last.Text,
			Msg: fmt.Sprintf("the heredoc opened on line %d is not closed by a line %q; "+
				"send the patch without the shell wrapper, or close it", first.N, m[2])}
	}
	return lines[1 : len(lines)-1], nil
}

// unwrap checks "*** Begin Patch" … "*** End Patch" and returns the lines
// between them, without an Environment ID line, and the End line.
func unwrap(lines []Line) (*Body, error) {
	lines = trimBlank(lines)
	if len(lines) == 0 {
		return nil, &Error{Msg: "the payload is empty; send '*** Begin Patch', the sections, then '*** End Patch'"}
	}
	if first := lines[0]; strings.TrimSpace(first.Text) != Begin {
		return nil, &Error{Line: first.N, Text: first.Text, Msg: beginMessage(lines)}
	}
	last := lines[len(lines)-1]
	if len(lines) < 2 || strings.TrimSpace(last.Text) != End {
		return nil, endError(lines)
	}
	b := &Body{}
	lines = dedent(lines, b)
	body := lines[1 : len(lines)-1]
	b.End = lines[len(lines)-1]
	if i := FirstNonBlank(body); i < len(body) && strings.HasPrefix(strings.TrimSpace(body[i].Text), EnvironmentID) {
		body = body[i+1:]
	}
	b.Lines = body
	return b, nil
}

// dedent removes the indentation of the "*** Begin Patch" line from every line of the
// envelope when every line that is not blank starts with it: a patch quoted in a
// Markdown list, or pasted indented. Blank lines become empty. A payload whose lines
// do not all share that indentation is left as it is. What it takes away is kept in b,
// for b.Quote.
func dedent(lines []Line, b *Body) []Line {
	first := lines[0].Text
	indent := first[:len(first)-len(strings.TrimLeft(first, " \t"))]
	if indent == "" {
		return lines
	}
	for _, l := range lines {
		if strings.TrimSpace(l.Text) != "" && !strings.HasPrefix(l.Text, indent) {
			return lines
		}
	}
	b.indent, b.short = indent, map[int]string{}
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = Line{N: l.N, Text: strings.TrimPrefix(l.Text, indent)}
		if strings.TrimSpace(out[i].Text) == "" && !strings.HasPrefix(l.Text, indent) {
			out[i].Text, b.short[l.N] = "", l.Text // a blank line shorter than the indentation
		}
	}
	return out
}

// beginMessage explains a first line that is not "*** Begin Patch". A payload escaped
// once too often, as a JSON string inside a JSON string, has the two characters \n
// where its line breaks belong (PowerShell's escape, `n, the same); a JSON object is
// not the patch itself; a shell command whose heredoc holds the patch is not run.
func beginMessage(lines []Line) string {
	t := strings.TrimSpace(lines[0].Text)
	switch {
	case strings.HasPrefix(t, Begin+`\n`) || strings.HasPrefix(t, Begin+`\r\n`):
		return "the payload has the two characters '\\n' where its line breaks belong (it was escaped once too " +
			"often, as JSON inside JSON); send the patch text itself, with real line breaks"
	case strings.HasPrefix(t, Begin+"`n") || strings.HasPrefix(t, Begin+"`r`n"):
		return "the payload has the two characters '`n' (PowerShell's escape for a line break) where its line " +
			"breaks belong; send the patch text itself, with real line breaks"
	case strings.HasPrefix(t, "{") && strings.Contains(t, Begin):
		return "the payload is a JSON object holding the patch; send the patch text itself, from '*** Begin Patch' " +
			"to '*** End Patch', as the tool's input"
	case strings.Contains(t, "<<") && len(lines) > 1 && strings.TrimSpace(lines[1].Text) == Begin:
		cd := ""
		if strings.HasPrefix(t, "cd ") || strings.Contains(t, "&& cd ") || strings.Contains(t, "; cd ") {
			cd = ", so its cd is not followed either"
		}
		return "the patch comes inside a shell command, which this tool does not run" + cd + "; send only the " +
			"patch, from '*** Begin Patch' to '*** End Patch', with every path relative to the workspace"
	}
	return "the first line of the patch must be '*** Begin Patch'; send only the patch, with no text before it"
}

// FirstNonBlank returns the index of the first line that is not blank, or len(lines).
func FirstNonBlank(lines []Line) int {
	for i, l := range lines {
		if strings.TrimSpace(l.Text) != "" {
			return i
		}
	}
	return len(lines)
}

// endError explains a missing or misplaced "*** End Patch".
func endError(lines []Line) error {
	for i := len(lines) - 1; i > 0; i-- {
		if strings.TrimSpace(lines[i].Text) == End {
			extra := lines[i+1]
			return &Error{Line: extra.N, Text: extra.Text,
				Msg: "text follows '*** End Patch'; send only the patch, with nothing after its last line"}
		}
	}
	last := lines[len(lines)-1]
	return &Error{Line: last.N, Text: last.Text,
		Msg: "the last line of the patch must be '*** End Patch'; the payload may have been cut off, so nothing was applied"}
}

// An Error says what is wrong with the envelope: the 1-based payload line and its text
// (0 and "" when the payload is empty) and what to do about it.
type Error struct {
	Line int
	Text string
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Open finds the patch in what a model sent: it drops a shell heredoc wrapper and a
// Markdown code fence around the envelope, checks "*** Begin Patch" … "*** End Patch"
// and returns the lines between them, without an Environment ID line, and the End line,
// as a Body. Each line keeps its payload number and loses one CR before its LF.
func Open(payload string) (*Body, error) {
	lines, err := unwrapHeredoc(split(strings.TrimPrefix(payload, BOM)))
	if err != nil {
		return nil, err
	}
	if lines, err = unwrapFence(lines); err != nil {
		return nil, err
	}
	return unwrap(lines)
}
