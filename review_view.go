package applypatch

import (
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/show"
)

// A View is one consistent snapshot of a review: everything a front end draws, taken at
// one moment so that the rows, the counts and the labels never come from two different
// states. [Session.View] takes a new one; a View never changes afterwards.
//
// The counts cover selected changes only, except Files and Total.
type View struct {
	// State is where the session is in its life.
	State State
	// Files counts every operation; FilesSelected those with a selected change.
	Files, FilesSelected int
	// Selected and Total count changes: one per changing hunk of an Update, one per Add,
	// Delete or Move. Locators count nowhere.
	Selected, Total int
	// Added and Removed count the lines of the operations with a selected change: an
	// Update's selected hunks, an Add's content, a Delete's baseline, all of a Move's hunks.
	Added, Removed int
	// Comments counts staged feedback: whole-patch, per operation and per hunk.
	Comments int
	// Header is the review's header, e.g.
	// "ApplyPatch · 2 files · 3/4 changes · +3 −1 · 1 comment", with U+2212 as the minus
	// sign and the singular for exactly 1.
	Header string
	// Action is the label of the primary action: "Apply N changes in M files" (plus
	// " · send K comments" with feedback staged), "Request revision · K comments" when
	// only feedback is staged, "Reject patch" when nothing is selected or staged.
	Action string
	// Feedback is the feedback staged on the whole patch; a row's own is [Row.Feedback].
	Feedback string
	// Conflict is the failure of the last submission: a [*ConflictError] for a stale
	// file, an [*IncompleteRollbackError], or a match failure of a re-selected hunk. It is
	// nil before the first submission and after a later one starts. Its message names
	// authored paths only.
	Conflict error
	// Result and Err are, once State is [StateSettled], the session's outcome: what
	// [Session.Run] returns ([ErrRejected] and [ErrAborted] among the errors); nil before.
	Result *Result
	Err    error
	// Rows are the visible rows, top to bottom: one per operation, and under each
	// expanded Update one per changing hunk. Locators never appear.
	Rows []Row
}

// View returns a snapshot of the review, taken under the session's lock.
func (s *Session) View() View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view()
}

// view builds the snapshot. s.mu is held.
func (s *Session) view() View {
	v := s.tally()
	v.State, v.Feedback, v.Conflict, v.Rows = s.state, s.pr.feedback, s.conflict, s.rows()
	v.Result, v.Err = s.result, s.err
	return v
}

// header renders View.Header from the counts.
func (v *View) header() string {
	word := "changes"
	if v.Total == 1 {
		word = "change"
	}
	h := fmt.Sprintf("ApplyPatch · %s · %d/%d %s · +%d −%d", show.Plural(v.Files, "file"), v.Selected, v.Total, word, v.Added, v.Removed)
	if v.Comments > 0 {
		h += " · " + show.Plural(v.Comments, "comment")
	}
	return h
}

// action renders View.Action from the counts.
func (v *View) action() string {
	switch {
	case v.Selected > 0:
		l := fmt.Sprintf("Apply %s in %s", show.Plural(v.Selected, "change"), show.Plural(v.FilesSelected, "file"))
		if v.Comments > 0 {
			l += " · send " + show.Plural(v.Comments, "comment")
		}
		return l
	case v.Comments > 0:
		return "Request revision · " + show.Plural(v.Comments, "comment")
	}
	return "Reject patch"
}

// tally counts the selection into a View's counts and labels. s.mu is held.
func (s *Session) tally() View {
	v := View{Files: len(s.pr.changes), Comments: s.pr.comments()}
	for _, c := range s.pr.changes {
		sel, total, added, removed := s.opCounts(c)
		v.Selected += sel
		v.Total += total
		if sel > 0 {
			v.FilesSelected++
			v.Added += added
			v.Removed += removed
		}
	}
	v.Header, v.Action = v.header(), v.action()
	return v
}

// opCounts counts one operation (mevedel §2.5): selected and total changes, and its
// added and removed lines: an Add's content lines and a Delete's baseline lines whether
// selected or not, all of a Move's hunks, an Update's selected hunks.
func (s *Session) opCounts(c *change) (sel, total, added, removed int) {
	sel, total = c.tally()
	switch {
	case c.Op.Kind == OpAdd:
		return sel, total, len(c.Op.Lines), 0
	case c.Op.Kind == OpDelete:
		return sel, total, 0, s.deleted[c]
	}
	for _, h := range c.changing() {
		if h.Selected || c.Op.isMove() {
			a, r := h.counts()
			added += a
			removed += r
		}
	}
	return sel, total, added, removed
}

// Render renders the whole review as plain text, the way a terminal front end shows it:
// the header, a conflict block after a failed submission, whole-patch feedback, the rows
// with their lines and feedback, and the actions. While the patch is applied it is one
// progress line.
func (s *Session) Render() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StateSubmitting:
		return "ApplyPatch · Applying patch and refreshing diagnostics..."
	case StateSettled:
		return s.result.Summary()
	}
	v := s.view()
	rows := v.Rows
	var b strings.Builder
	b.WriteString(v.Header + "\n")
	if v.Conflict != nil {
		b.WriteString("Conflict: " + v.Conflict.Error() + "\n")
	}
	writeFeedback(&b, "  ", v.Feedback)
	b.WriteString("\n")
	for i, r := range rows {
		b.WriteString(r.String() + "\n")
		for _, l := range r.Lines {
			b.WriteString(l.String() + "\n")
		}
		if r.isHunk() {
			writeFeedback(&b, "      ", r.Feedback)
		}
		if i+1 == len(rows) || !rows[i+1].isHunk() {
			writeFeedback(&b, "  ", s.pr.changes[r.Target.File-1].Feedback)
		}
	}
	b.WriteString("\n[ " + v.Action + " ]")
	if v.Action != "Reject patch" {
		b.WriteString("   [ Reject all ]")
	}
	return b.String()
}

// writeFeedback renders staged feedback as "✎ first line" with continuation lines
// indented under it.
func writeFeedback(b *strings.Builder, indent, text string) {
	if text == "" {
		return
	}
	b.WriteString(indent + "✎ " + strings.ReplaceAll(text, "\n", "\n"+indent+"  ") + "\n")
}
