package applypatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/show"
)

// editedNote and addedNote explain a person's revision to the model.
const (
	editedNote = "The user rewrote this file's change before approving it. The applied content below is what they chose: " +
		"treat it as intentional, and do not revert or \"correct\" it."
	addedNote = "The user rewrote this new file's content before approving it. The file as written is what they chose: " +
		"treat it as intentional, and do not revert or \"correct\" it."
)

// result builds the result of the proposal as settled and committed.
func (pr *Proposal) result() *Result {
	return pr.resultAs(false)
}

// resultAs builds the result; checked reports what would be written.
func (pr *Proposal) resultAs(checked bool) *Result {
	applied, total := pr.tally()
	r := &Result{Kind: resultKind, Status: StatusApplied, Applied: applied, Total: total, Comments: pr.comments(),
		Revised: pr.revised(), Checked: checked, Files: []FileResult{}, Notes: []string{}}
	r.Items = make([]string, 0, total+len(pr.changes)) // a line a change, and room for a few notes
	switch {
	case applied == 0:
		r.Status = StatusRevision
	case checked:
		r.Status = StatusChecked
	}
	if pr.feedback != "" {
		r.note(feedbackLine("", 0, pr.feedback))
	}
	for _, c := range pr.changes {
		c.report(r, pr)
	}
	if !checked {
		r.Reminder = pr.reminder()
	}
	return r
}

// feedbackLine renders staged feedback: on the whole patch (path ""), an operation
// (hunk 0) or a hunk. Continuation lines of multi-line feedback are indented, so every
// item still starts a line of its own.
func feedbackLine(path string, hunk int, text string) string {
	text = strings.ReplaceAll(text, "\n", "\n  ")
	switch {
	case path == "":
		return "Feedback (whole patch): " + text
	case hunk == 0:
		return fmt.Sprintf("Feedback: %s: %s", path, text)
	}
	return fmt.Sprintf("Feedback: %s hunk %d: %s", path, hunk, text)
}

// rejectedLine renders a deselected change: an operation (hunk 0) or a hunk.
func rejectedLine(path string, hunk int) string {
	if hunk == 0 {
		return "Rejected: " + path
	}
	return fmt.Sprintf("Rejected: %s hunk %d", path, hunk)
}

// report adds a change's lines to the result.
func (c *change) report(r *Result, pr *Proposal) {
	if c.divisible() {
		c.reportHunks(r)
	} else {
		c.reportWhole(r)
	}
	if c.Feedback != "" {
		r.note(feedbackLine(show.Path(c.Op.Path), 0, c.Feedback))
	}
	if c.hasSelection() {
		r.Files = append(r.Files, c.fileResult(pr))
	}
}

// reportHunks reports an Update hunk by hunk, numbering changing hunks from 1.
func (c *change) reportHunks(r *Result) {
	if c.revisedSelection() {
		r.item(fmt.Sprintf("User edited during review (authoritative): %s (whole file revised)", show.Path(c.Op.Path)))
		r.item(editedNote)
		r.item(c.revisedDiff())
	}
	path := show.Path(c.Op.Path)
	applied := r.verb() + ": " + path + " hunk " // the start of every applied hunk's line
	num := 0
	for _, h := range c.Hunks {
		if h.isLocator() {
			continue
		}
		num++
		if h.Selected {
			r.item(applied + strconv.Itoa(num))
			if h.Place.Pass.Fuzzy() {
				r.note(fmt.Sprintf("Fuzzy: %s hunk %d matched while %s%s", path, num, h.Place.Pass, indentNote[h.indentUnlike]))
			}
		} else {
			r.note(rejectedLine(path, num))
		}
		if h.Feedback != "" {
			r.note(feedbackLine(path, num, h.Feedback))
		}
	}
}

// reportWhole reports an Add, a Delete, a Move or a whole rewrite, which apply whole.
func (c *change) reportWhole(r *Result) {
	if !c.Selected {
		r.note(rejectedLine(show.Path(c.Op.Path), 0))
		return
	}
	switch {
	case c.Op.Kind == OpAdd && c.Revised:
		r.item("User edited during review (authoritative): " + show.Path(c.Op.Path))
		r.item(addedNote)
	case c.revisedSelection():
		r.item(fmt.Sprintf("User edited during review (authoritative): %s (whole file revised)", show.Path(c.Op.Path)))
		r.item(editedNote)
		r.item(c.revisedDiff())
	}
	if c.Op.MoveTo != "" {
		r.item(fmt.Sprintf("%s: %s -> %s", r.verb(), show.Path(c.Op.Path), show.Path(c.Op.MoveTo)))
	} else {
		r.item(r.verb() + ": " + show.Path(c.Op.Path))
	}
	for _, h := range c.Hunks {
		if h.Place.Pass.Fuzzy() && !h.isLocator() {
			r.note(fmt.Sprintf("Fuzzy: %s matched while %s", show.Path(c.Op.Path), h.Place.Pass))
			break
		}
	}
}

// revisedDiff renders the diff lines of the applied revised hunks.
func (c *change) revisedDiff() string {
	var lines []string
	for _, h := range c.Hunks {
		if h.Revised && c.applies(h) {
			for _, l := range h.Lines {
				lines = append(lines, string(rune(l.Kind))+l.Text)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// fileResult renders the written diff of a selected change.
func (c *change) fileResult(pr *Proposal) FileResult {
	f := FileResult{Path: c.Op.Path, MovePath: c.Op.MoveTo, Kind: string(c.Op.Kind), Revised: c.Revised}
	if c.Op.isMove() {
		f.Kind = "move"
	}
	d := diffWriter{f: &f}
	switch c.Op.Kind {
	case OpAdd:
		f.Mode = c.addMode(pr.opts.fileMode())
		if text, ok := addedText(pr.payload, c.Op.Lines); ok {
			f.Added, f.Diff = len(c.Op.Lines), text
			return f
		}
		d.lines('+', c.Op.Lines)
	case OpDelete:
		d.lines('-', pr.displayLines(c))
	case OpUpdate:
		c.hunkDiff(&d)
	}
	f.Diff = d.b.String()
	return f
}

// diffWriter writes a file result's diff, one line at a time, and counts its added and
// removed lines.
type diffWriter struct {
	b strings.Builder
	f *FileResult
}

// line writes a line of kind '+', '-' or ' '.
func (d *diffWriter) line(kind byte, text string) {
	d.sep()
	d.b.WriteByte(kind)
	d.b.WriteString(text)
	switch kind {
	case '+':
		d.f.Added++
	case '-':
		d.f.Removed++
	}
}

// lines writes every line of a whole file as kind, in a buffer sized for them once.
func (d *diffWriter) lines(kind byte, text []string) {
	size := 0
	for _, l := range text {
		size += len(l) + 2
	}
	d.b.Grow(size)
	for _, l := range text {
		d.line(kind, l)
	}
}

// heading writes a hunk's "@@ ANCHOR" line, or "@@" for none, without trailing spaces.
func (d *diffWriter) heading(anchor string) {
	d.sep()
	d.b.WriteString("@@")
	if a := strings.TrimRight(anchor, " "); a != "" {
		d.b.WriteByte(' ')
		d.b.WriteString(a)
	}
}

func (d *diffWriter) sep() {
	if d.b.Len() > 0 {
		d.b.WriteByte('\n')
	}
}

// hunkDiff renders the applied changing hunks, each headed "@@ ANCHOR" or "@@".
func (c *change) hunkDiff(d *diffWriter) {
	size := 0 // the diff's length, at most: a heading is "\n@@ " and its anchor, a line "\n", its kind and text
	for _, h := range c.Hunks {
		if h.isLocator() || !c.applies(h) {
			continue
		}
		for _, a := range h.chain() {
			size += 4 + len(a)
		}
		size += 4 // the hunk's own heading, when it has no anchor
		for _, l := range h.Lines {
			size += len(l.Text) + 2
		}
	}
	d.b.Grow(size)
	for _, h := range c.Hunks {
		if h.isLocator() || !c.applies(h) {
			continue
		}
		d.f.Fuzzy = d.f.Fuzzy || h.Place.Pass.Fuzzy()
		d.f.Revised = d.f.Revised || h.Revised
		chain := h.chain()
		for _, a := range chain[:max(len(chain)-1, 0)] {
			d.heading(a)
		}
		d.heading(h.Anchor)
		at, fromFile := h.Place.Start, h.Place.Pass.Fuzzy() && c.text != nil
		for _, l := range h.Lines {
			text := l.Text
			if fromFile && l.Kind != LineAdd && at < c.text.Count() {
				text = c.text.Line(at) // a fuzzy hunk's old lines as the file held them
			}
			if l.Kind != LineAdd {
				at++
			}
			d.line(byte(l.Kind), text)
		}
	}
}

// baselineLines splits a file's bytes into lines for display, without terminators.
func baselineLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return lines.Split(string(b)).Strings()
}

// tally counts selected and total changes.
func (pr *Proposal) tally() (selected, total int) {
	for _, c := range pr.changes {
		s, t := c.tally()
		selected += s
		total += t
	}
	return selected, total
}

// tally counts a change's selected and total changes: one for an Add, a Delete or a
// Move or a whole rewrite, one per changing hunk for an Update. Locators count nowhere.
func (c *change) tally() (selected, total int) {
	if !c.divisible() {
		if c.Selected {
			return 1, 1
		}
		return 0, 1
	}
	for _, h := range c.Hunks {
		if h.isLocator() {
			continue
		}
		total++
		if h.Selected {
			selected++
		}
	}
	return selected, total
}

// revised counts applied changes a person rewrote: revised selected hunks of
// Updates, revised hunks of selected Moves, and selected revised Adds.
func (pr *Proposal) revised() int {
	n := 0
	for _, c := range pr.changes {
		if c.Op.Kind == OpAdd && c.Revised && c.Selected {
			n++
		}
		for _, h := range c.Hunks {
			if h.Revised && !h.isLocator() && c.applies(h) {
				n++
			}
		}
	}
	return n
}

// comments counts staged feedback: whole-patch, per operation, per hunk.
func (pr *Proposal) comments() int {
	n := 0
	if pr.feedback != "" {
		n++
	}
	for _, c := range pr.changes {
		if c.Feedback != "" {
			n++
		}
		for _, h := range c.Hunks {
			if h.Feedback != "" {
				n++
			}
		}
	}
	return n
}

// reminder is the one-shot message for the model's next turn after a revised patch was
// applied.
func (pr *Proposal) reminder() string {
	var revised []string
	for _, c := range pr.changes {
		switch {
		case c.Op.Kind == OpAdd && c.Revised && c.Selected:
			revised = append(revised, c.Op.Path+" (new file content)")
		case c.revisedSelection():
			revised = append(revised, c.Op.Path+" (whole file revised)")
		}
	}
	if len(revised) == 0 {
		return ""
	}
	return "The user revised your last patch before approving it: " + strings.Join(revised, ", ") +
		". Their revisions are deliberate and authoritative; do not revert them or re-apply your original version unless asked."
}

// displayCount is the number of lines displayLines returns.
func (pr *Proposal) displayCount(c *change) int {
	if c.text != nil {
		return c.text.Count()
	}
	return len(pr.displayLines(c))
}

// displayLines returns the lines of a change's baseline for display: decoded when the
// file's encoding allows, else split as they are.
func (pr *Proposal) displayLines(c *change) []string {
	if c.text != nil {
		return c.text.Strings()
	}
	if t, _, err := pr.decodeBase(c); err == nil {
		return t.Strings()
	}
	return baselineLines(c.Base.Bytes)
}
