package applypatch

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

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
	Kind string `json:"kind"`
	// Status is how the call ended.
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
	// Mode is, for an Add, the mode its file is written with: Options.FileMode, or for
	// an undo that brings a deleted file back, the mode it had. Zero for other kinds.
	Mode fs.FileMode `json:"mode,omitempty"`
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

// UnmarshalJSON decodes a FileResult, taking the destination of a move from "movePath" or
// from "move-path", the key earlier versions wrote.
func (f *FileResult) UnmarshalJSON(b []byte) error {
	type plain FileResult
	var v struct {
		plain
		Legacy string `json:"move-path"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = FileResult(v.plain)
	if f.MovePath == "" {
		f.MovePath = v.Legacy
	}
	return nil
}
