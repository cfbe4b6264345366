package webreview

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/applypatch/applypatch"
)

// view is everything the page template shows. It is built from one snapshot of the
// session ([applypatch.Session.View]) on every request; the page keeps no review state of
// its own.
type view struct {
	Token string
	Nonce string
	// State is "open", "submitting" or "settled".
	State string
	// Header, Primary and Rows are the session's (R1, R5, R6).
	Header  string
	Primary string
	Rows    []rowView
	// Feedback is the staged whole-patch feedback.
	Feedback string
	// Conflict is the failure of the last submission, with what to do about it.
	Conflict *conflictView
	// Problem is a request the session just refused; Confirm a request that needs a yes.
	Problem string
	Confirm *confirmView
	// Edit is the open revision editor.
	Edit *editView
	// Card is the collaboration card panel.
	Card cardView
	// Result is the settled outcome.
	Result *resultView
}

// rowView is one row with what the template cannot compute itself.
type rowView struct {
	applypatch.Row
	// ID is the row's element id, the anchor a request returns to.
	ID string
	// Match explains a fuzzy match: "Matched while ignoring trailing whitespace".
	Match string
	// Where is a hunk's place in its file as authored, "greet.go:7" (R11).
	Where string
	// Hunk is set on a hunk row, clear on a file row.
	Hunk bool
}

type conflictView struct {
	Message string
	Hint    string
}

// confirmView asks before a selection clears feedback (R7).
type confirmView struct {
	Prompt string
	Target applypatch.Target
}

type editView struct {
	Target   applypatch.Target
	Path     string
	Line     int
	Baseline string
	Text     string
	// Proposed is the digest of the result the editor opened with: a revision posted
	// against a result that changed meanwhile is discarded (R8).
	Proposed string
	// Confirm is the question to answer before the edit can be adopted.
	Confirm string
}

type cardView struct {
	applypatch.Card
	Short     string
	Published int
	Sends     bool // the page has somewhere to send the card (PageOptions.Publish)
}

type resultView struct {
	Summary string
	Text    string
	Error   bool
}

// rowID is the element id of a target's row.
func rowID(t applypatch.Target) string {
	if t.Hunk == 0 {
		return fmt.Sprintf("row-%d", t.File)
	}
	return fmt.Sprintf("row-%d-%d", t.File, t.Hunk)
}

// rowsView decorates the session's rows for the template.
func rowsView(rows []applypatch.Row) []rowView {
	out := make([]rowView, len(rows))
	for i, r := range rows {
		out[i] = rowView{Row: r, ID: rowID(r.Target), Hunk: r.Target.Hunk > 0}
		if r.Fuzzy != "" {
			out[i].Match = "Matched while " + r.Fuzzy
		}
	}
	return out
}

// conflictHints say what to do after a failed submission (mevedel §2.1).
const (
	hintStale      = "Deselect the stale file to apply the rest, or reject the patch so the model re-reads it."
	hintIncomplete = "Rollback was incomplete. Inspect the listed paths before retrying."
)

// conflictOf describes the failure of the last submission; its message names authored
// paths only.
func conflictOf(err error) *conflictView {
	if err == nil {
		return nil
	}
	hint := hintStale
	if errors.As(err, new(*applypatch.IncompleteRollbackError)) {
		hint = hintIncomplete
	}
	return &conflictView{Message: err.Error(), Hint: hint}
}

// resultOf describes a settled session.
func resultOf(s *applypatch.Session) *resultView {
	res := s.View().Result
	if res == nil {
		return nil
	}
	return &resultView{Summary: minusSign(res.Summary()), Text: res.Text(), Error: res.Status == applypatch.StatusError}
}

// removedCount is the " -D)" that ends a transcript summary, "(+3 -1)".
var removedCount = regexp.MustCompile(`(\(\+\d+) -(\d+\))$`)

// minusSign writes a summary's removed-line count with a minus sign (U+2212), as the
// header and every row write it; the summary itself stays ASCII for transcripts.
func minusSign(summary string) string { return removedCount.ReplaceAllString(summary, "$1 −$2") }

// shortHash is the first characters of a card hash, enough to tell versions apart.
func shortHash(h string) string { return h[:min(len(h), 12)] }

// lines sizes a text area for a text: its line count, from 4 to 40.
func lines(s string) int { return min(max(strings.Count(s, "\n")+1, 4), 40) }
