package applypatch

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/show"
)

// An Edit is a change anchored by text rather than by a patch's context lines, as text
// editor tools ask for it: replace the one place Old occurs in the file with New, or,
// with Insert set, insert New after line Line (0 puts it at the top). Old and New are
// written with "\n" line breaks whatever the file uses; the file keeps its own line
// endings, byte-order mark, encoding and indentation everywhere else.
type Edit struct {
	// Path is the file, as authored: relative to the workspace, or absolute.
	Path string
	// Old is the text to replace. It must occur exactly once in the file, as written,
	// or else once when each line's surrounding whitespace is ignored (a fuzzy match,
	// reported as one): then Old must span whole lines.
	Old string
	// New is the text that replaces Old, or that is inserted.
	New string
	// Insert and Line ask for New to be inserted after the 1-based line Line.
	Insert bool
	Line   int
}

// ResolveEdit resolves one edit on fsys as [Resolve] resolves a patch of one Update:
// the path is fenced and authorized, its baseline captured and the change placed, so the
// proposal is reviewed and committed like any other (with the lock, the journal,
// rollback and, with Options.History, undo). Old that is absent, or occurs at more than
// one place, is a [*MatchError] of reason MatchNotFound or MatchAmbiguous that says
// where; nothing is written.
func ResolveEdit(ctx context.Context, fsys afero.Fs, e Edit, opts *Options) (*Proposal, error) {
	if msg := pathProblem(e.Path); msg != "" {
		return nil, &ParseError{Msg: "the edit's path: " + msg}
	}
	for _, t := range []struct{ name, text string }{{"old", e.Old}, {"new", e.New}} {
		if f := findTextFault(t.text); f != nil {
			return nil, &ParseError{Msg: fmt.Sprintf("line %d of the edit's %s text: %s", f.line, t.name, f)}
		}
	}
	p := &Patch{Ops: []Operation{{Kind: OpUpdate, Path: e.Path, Line: 1}}}
	return resolveWith(ctx, fsys, p, opts, true, nil, []*Edit{&e})
}

// placeEdit places an edit on the file's text s: a one-hunk change at the place its old
// text names, found without the hunk matcher's context search.
func (pr *Proposal) placeEdit(c *change, s string, cd *lines.Codec) []error {
	t := lines.Split(s)
	c.text, c.codec = t, cd
	e := c.edit
	newLines := editLines(e.New)
	var h Hunk
	var place match.Place
	if e.Insert {
		if e.Line < 0 || e.Line > t.Count() {
			return []error{&MatchError{Path: c.Op.Path, Reason: MatchNotFound, FileLines: t.Count(), editInsert: true, editLine: e.Line}}
		}
		for _, l := range newLines {
			h.Lines = append(h.Lines, Line{Kind: LineAdd, Text: l})
		}
		place = match.Place{Start: e.Line, Pass: match.Exact}
	} else {
		start, end, pass, repl, err := findOld(t, e.Old, e.New)
		if err != nil {
			err.Path = c.Op.Path
			return []error{err}
		}
		for i := start; i < end; i++ {
			h.Lines = append(h.Lines, Line{Kind: LineRemove, Text: t.Line(i)})
		}
		for _, l := range repl {
			h.Lines = append(h.Lines, Line{Kind: LineAdd, Text: l})
		}
		place = match.Place{Start: start, Len: end - start, Pass: pass}
	}
	if len(h.Lines) == 0 {
		return nil // an insertion of nothing changes nothing
	}
	h.Line = 1
	c.Op.Hunks = []Hunk{h}
	c.Hunks = []*hunkChange{{Hunk: h, Place: place, Selected: true}}
	if err := c.validate(); err != nil {
		return []error{err}
	}
	return nil
}

// editLines splits an edit's text into lines: "\r\n" and "\n" break lines, and a final
// line break ends the last line rather than starting an empty one.
func editLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// findOld finds the one place old occurs in t: as written (it may start and end inside a
// line), or else as whole lines with each line's surrounding whitespace ignored. It
// returns the lines [start, end) that the occurrence touches and the lines that replace
// them: the text before old on its first line, new, and the text after old on its last.
func findOld(t *lines.Text, old, new string) (start, end int, pass match.Pass, repl []string, err *MatchError) {
	old = strings.ReplaceAll(old, "\r\n", "\n")
	if old == "" {
		return 0, 0, 0, nil, &MatchError{Reason: MatchNotFound, editEmpty: true}
	}
	joined := joinLines(t)
	new = strings.ReplaceAll(new, "\r\n", "\n")
	at := textOccurrences(joined.text, old)
	if len(at) == 1 {
		endOff := at[0] + len(old)
		if strings.HasSuffix(old, "\n") && strings.HasSuffix(new, "\n") {
			endOff, new = endOff-1, new[:len(new)-1] // both end a line: the next line is untouched
		}
		last := len(strings.TrimSuffix(joined.text, "\n"))
		ateBreak := endOff > last // old took the file's last line break: no line follows to join
		endOff = min(endOff, last)
		s, sc := joined.locate(at[0])
		e, ec := joined.locate(endOff)
		text := t.Line(s)[:sc] + new + t.Line(e)[ec:]
		if e == t.Count()-1 && t.EOL(e) == lines.EOLNone {
			text = strings.TrimSuffix(text, "\n") // the last line gains its line break anyway (T4)
		}
		if ateBreak && text == "" {
			return s, e + 1, match.Exact, nil, nil // whole lines to the end of the file, removed
		}
		return s, e + 1, match.Exact, strings.Split(text, "\n"), nil
	}
	if len(at) > 1 {
		return 0, 0, 0, nil, ambiguousEdit(joined, at)
	}
	for _, p := range []match.Pass{match.TrailingWhitespace, match.SurroundingWhitespace} {
		starts := foldedRuns(t, editLines(old), p)
		switch {
		case len(starts) == 1:
			n := len(editLines(old))
			return starts[0], starts[0] + n, p, editLines(new), nil
		case len(starts) > 1:
			err := &MatchError{Reason: MatchAmbiguous, editFold: p}
			for _, s := range starts {
				err.Lines = append(err.Lines, s+1)
			}
			return 0, 0, 0, nil, trimCandidates(err)
		}
	}
	return 0, 0, 0, nil, &MatchError{Reason: MatchNotFound, editOld: show.Clip(old, 200)}
}

// joinedText is a text's lines, each ended by "\n" but a last one the file does not
// end, with where each line starts.
type joinedText struct {
	text   string
	starts []int
}

// joinLines joins t's lines. The last line's line break is part of the text, so that
// old text ending there is found, and counted, as the file has it.
func joinLines(t *lines.Text) joinedText {
	var b strings.Builder
	b.Grow(t.Len())
	j := joinedText{starts: make([]int, t.Count())}
	for i := range t.Count() {
		j.starts[i] = b.Len()
		b.WriteString(t.Line(i))
		if i+1 < t.Count() || t.EOL(i) != lines.EOLNone {
			b.WriteByte('\n')
		}
	}
	j.text = b.String()
	return j
}

// locate is the line and column of offset off.
func (j joinedText) locate(off int) (line, col int) {
	lo, hi := 0, len(j.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if j.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, off - j.starts[lo]
}

// editCandidates bounds the places an ambiguous edit's error lists.
const editCandidates = 5

// textOccurrences returns where old occurs in s, overlapping ones too, up to one more than
// an error lists.
func textOccurrences(s, old string) []int {
	var at []int
	for off := 0; len(at) <= editCandidates; {
		i := strings.Index(s[off:], old)
		if i < 0 {
			break
		}
		at = append(at, off+i)
		off += i + 1
	}
	return at
}

// ambiguousEdit is the error of old text found at several places.
func ambiguousEdit(j joinedText, at []int) *MatchError {
	err := &MatchError{Reason: MatchAmbiguous, editExact: true}
	for _, off := range at {
		l, _ := j.locate(off)
		err.Lines = append(err.Lines, l+1)
	}
	return trimCandidates(err)
}

// trimCandidates keeps the first places an error lists, counting the others in More.
func trimCandidates(err *MatchError) *MatchError {
	if len(err.Lines) > editCandidates {
		err.More, err.moreCapped = len(err.Lines)-editCandidates, true
		err.Lines = err.Lines[:editCandidates]
	}
	return err
}

// foldedRuns returns where the lines old occur as consecutive lines of t, each compared
// with the normalisation of pass; up to one more than an error lists.
func foldedRuns(t *lines.Text, old []string, pass match.Pass) []int {
	fold := strings.TrimRight
	if pass == match.SurroundingWhitespace {
		fold = strings.Trim
	}
	var starts []int
	for s := 0; s+len(old) <= t.Count() && len(starts) <= editCandidates; s++ {
		i := 0
		for i < len(old) && fold(t.Line(s+i), " \t") == fold(old[i], " \t") {
			i++
		}
		if i == len(old) {
			starts = append(starts, s)
		}
	}
	return starts
}

// editReason words an edit's MatchError, or returns "" for a hunk's.
func (e *MatchError) editReason() string {
	switch {
	case e.editEmpty:
		return "the old text is empty; give the exact text to replace, or insert at a line instead."
	case e.editInsert:
		return fmt.Sprintf("cannot insert after line %d: the file has %d lines (0 inserts at the top).", e.editLine, e.FileLines)
	case e.editExact:
		return fmt.Sprintf("the old text occurs at %s places, starting on lines %s; include more of the lines around it so that it occurs once.",
			countWord(len(e.Lines)+e.More, e.moreCapped), e.lines())
	case e.editFold != 0:
		return fmt.Sprintf("the old text is not in the file as written, and %s it occurs at several places, on lines %s; copy it exactly, with more of the lines around it.",
			e.editFold, e.lines())
	case e.editOld != "":
		return "the old text is not in the file, neither as written nor ignoring whitespace around each line; view the file and copy the text to replace exactly."
	}
	return ""
}

// countWord says how many places: "more than N" when counting stopped.
func countWord(n int, capped bool) string {
	if capped {
		return fmt.Sprintf("more than %d", n-1)
	}
	return fmt.Sprint(n)
}
