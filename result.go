package applypatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/show"
)

// Status is the outcome of a call.
type Status string

const (
	// StatusApplied: changes were written (feedback may ride along).
	StatusApplied Status = "applied"
	// StatusRevision: nothing was written and feedback asks the model for a revision. It
	// is a success: the model continues.
	StatusRevision Status = "revision"
	// StatusError: nothing was written; Message says why.
	StatusError Status = "error"
	// StatusChecked: nothing was written because the call only checked the patch
	// ([Check], the CLI's --check); it applies cleanly, and Applied counts what would be
	// written.
	StatusChecked Status = "checked"
)

// A Result is the outcome of one call, for the model and for hosts. Text renders
// what the model sees; Summary the transcript line; the JSON form is render data.
type Result struct {
	// Kind is always "patch": the kind of render data.
	Kind   string `json:"kind"`
	Status Status `json:"status"`
	// Applied counts the changes written; Total all changes of the patch. A change is one
	// changing hunk of an Update, or one whole Add, Delete or Move.
	Applied int `json:"applied"`
	Total   int `json:"total"`
	// Comments counts feedback sent: whole-patch, per operation and per hunk.
	Comments int `json:"comments"`
	// Revised counts applied changes a person rewrote in review.
	Revised int `json:"revised"`
	// Reviewed is set when a person settled the call in an interactive review.
	Reviewed bool `json:"reviewed"`
	// Message is the error of an error result.
	Message string `json:"message,omitempty"`
	// Files has one entry per operation with a change written, in payload order.
	Files []FileResult `json:"files"`
	// Notes are the feedback, fuzzy-match and rejection lines of Text.
	Notes []string `json:"notes"`
	// Checked is set on the result of [Check], whose Status is then StatusChecked (or
	// StatusRevision when nothing is selected): nothing was written, Applied counts what
	// would be. The JSON form carries it in the status alone.
	Checked bool `json:"-"`
	// Reminder is a one-shot message for the host to put before the model's next turn when
	// a person revised the patch; empty otherwise.
	Reminder string `json:"reminder,omitempty"`
	// Items are the lines of Text after its first: one item a line, in payload order
	// (applied, rejected and fuzzy changes, feedback). A Result decoded from its JSON
	// renders the same Text.
	Items []string `json:"items"`
}

// A FileResult is one operation of a result with its written diff.
type FileResult struct {
	// Path and MovePath are the operands as authored.
	Path     string `json:"path"`
	MovePath string `json:"movePath,omitempty"`
	// Kind is "add", "update", "delete" or "move".
	Kind string `json:"kind"`
	// Added and Removed count the '+' and '-' lines of Diff.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Diff is what was written: '+'/'-'/' ' lines, "@@ ANCHOR" heading each hunk.
	Diff string `json:"diff"`
	// Fuzzy is set when a hunk matched by a fuzzy pass; Revised when a person rewrote it.
	Fuzzy   bool `json:"fuzzy,omitempty"`
	Revised bool `json:"revised,omitempty"`
}

// resultKind is the kind of a result's render data.
const resultKind = "patch"

// ErrorResult is the result of a call that wrote nothing because of err: its text is
// "Error: " and the error's message, which is written for the model to act on.
func ErrorResult(err error) *Result { return errorResult(err) }

// errorResult is the result of a call that wrote nothing because of err.
func errorResult(err error) *Result {
	return &Result{Kind: resultKind, Status: StatusError, Message: err.Error(), Files: []FileResult{}, Notes: []string{}, Items: []string{}}
}

// Text renders the model-visible result: a first line, then one item a line in
// payload order.
func (r *Result) Text() string {
	if r.Status == StatusError {
		return "Error: " + r.Message
	}
	return strings.Join(append([]string{r.header()}, r.Items...), "\n")
}

func (r *Result) header() string {
	if r.Status == StatusRevision {
		return "Patch revision requested"
	}
	h := "Applied patch: " + show.Plural(r.Applied, "change")
	if r.checked() {
		h = "Patch applies cleanly: " + show.Plural(r.Applied, "change") + " (nothing written: check only)"
	}
	if r.Revised > 0 {
		h += fmt.Sprintf(" (%d revised by the user during review)", r.Revised)
	}
	return h
}

// Summary renders the transcript line, e.g.
// "ApplyPatch: 2 files · 3 changes (+3 -1)" or "ApplyPatch: revision requested · 1 comment sent".
func (r *Result) Summary() string {
	if r.Status == StatusError {
		return "ApplyPatch: error"
	}
	var b strings.Builder
	b.WriteString("ApplyPatch: ")
	if r.Applied == 0 {
		b.WriteString("revision requested")
	} else {
		b.WriteString(show.Plural(len(r.Files), "file") + " · ")
		if r.Applied == r.Total {
			b.WriteString(show.Plural(r.Applied, "change"))
		} else {
			fmt.Fprintf(&b, "%d/%d changes", r.Applied, r.Total)
		}
	}
	if r.Comments > 0 {
		b.WriteString(" · " + show.Plural(r.Comments, "comment") + " sent")
	}
	if r.Applied > 0 {
		a, d := r.lineCounts()
		fmt.Fprintf(&b, " (+%d -%d)", a, d)
	}
	return b.String()
}

// Body renders the transcript body: per file a heading and its diff, then the notes.
func (r *Result) body() string {
	var parts []string
	for _, f := range r.Files {
		parts = append(parts, strings.TrimSuffix(fileHeading(f)+"\n"+f.Diff, "\n"))
	}
	if len(r.Notes) > 0 {
		parts = append(parts, strings.Join(r.Notes, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// Preview sizes: a reviewed result opens on its first changes, each cut short.
const (
	previewChanges = 2
	previewLines   = 20
)

// Preview renders what a transcript shows of the body before it is expanded: for a
// reviewed result that applied something, the first 2 changes (a change is one "@@" chunk
// of an Update or Move, or a whole Add or Delete), each under its file's heading and cut to
// 20 lines plus "…", then "… K more changes". Otherwise "": the body starts collapsed.
func (r *Result) preview() string {
	if !r.Reviewed || r.Applied == 0 {
		return ""
	}
	var out []string
	shown, more := 0, 0
	for _, f := range r.Files {
		for i, chunk := range chunks(f.Diff) {
			if shown == previewChanges {
				more++
				continue
			}
			if i == 0 {
				out = append(out, fileHeading(f))
			}
			if len(chunk) > previewLines {
				chunk = append(chunk[:previewLines:previewLines], "…")
			}
			out = append(out, chunk...)
			shown++
		}
	}
	if more > 0 {
		out = append(out, "… "+show.Plural(more, "more change"))
	}
	return strings.Join(out, "\n")
}

// chunks splits a file's diff into changes: at each "@@" heading, or whole.
func chunks(diff string) [][]string {
	if diff == "" {
		return [][]string{{}} // an empty Add or Delete, or a pure rename: one change, no lines
	}
	var out [][]string
	for _, l := range strings.Split(diff, "\n") {
		if len(out) == 0 || strings.HasPrefix(l, "@@") {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], l)
	}
	return out
}

// fileHeading renders a file's heading in the body: "M PATH · +A −D".
func fileHeading(f FileResult) string {
	name := show.Path(f.Path)
	if f.MovePath != "" {
		name += " → " + show.Path(f.MovePath)
	}
	return fmt.Sprintf("%s %s · +%d −%d", statusLetter[f.Kind], name, f.Added, f.Removed)
}

var statusLetter = map[string]string{"add": "A", "update": "M", "delete": "D", "move": "R"}

func (r *Result) lineCounts() (added, deleted int) {
	for _, f := range r.Files {
		added += f.Added
		deleted += f.Removed
	}
	return added, deleted
}

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

// checked reports whether the result only checked the patch, as built or as decoded
// from its JSON form.
func (r *Result) checked() bool { return r.Checked || r.Status == StatusChecked }

// verb is how an applied change is reported.
func (r *Result) verb() string {
	if r.checked() {
		return "Would apply"
	}
	return "Applied"
}

// item adds a line to the text; note adds it to the notes too.
func (r *Result) item(s string) { r.Items = append(r.Items, s) }
func (r *Result) note(s string) {
	r.Items = append(r.Items, s)
	r.Notes = append(r.Notes, s)
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
	if c.Op.Kind == OpUpdate && c.Op.MoveTo == "" {
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
			if h.Place.Pass.fuzzy() {
				r.note(fmt.Sprintf("Fuzzy: %s hunk %d matched while %s", path, num, h.Place.Pass))
			}
		} else {
			r.note(rejectedLine(path, num))
		}
		if h.Feedback != "" {
			r.note(feedbackLine(path, num, h.Feedback))
		}
	}
}

// reportWhole reports an Add, a Delete or a Move, which apply whole.
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
		if h.Place.Pass.fuzzy() && !h.isLocator() {
			r.note(fmt.Sprintf("Fuzzy: %s matched while %s", show.Path(c.Op.Path), h.Place.Pass))
			break
		}
	}
}

// revisedSelection reports whether an applied hunk of the change was revised in review.
func (c *change) revisedSelection() bool {
	for _, h := range c.Hunks {
		if h.Revised && c.applies(h) {
			return true
		}
	}
	return false
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
		for _, l := range c.Op.Lines {
			d.line('+', l)
		}
	case OpDelete:
		for _, l := range pr.displayLines(c) {
			d.line('-', l)
		}
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
		d.f.Fuzzy = d.f.Fuzzy || h.Place.Pass.fuzzy()
		d.f.Revised = d.f.Revised || h.Revised
		chain := h.chain()
		for _, a := range chain[:max(len(chain)-1, 0)] {
			d.heading(a)
		}
		d.heading(h.Anchor)
		for _, l := range h.Lines {
			d.line(byte(l.Kind), l.Text)
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
// Move, one per changing hunk for an Update. Locators count nowhere.
func (c *change) tally() (selected, total int) {
	if c.Op.Kind != OpUpdate || c.Op.MoveTo != "" {
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
