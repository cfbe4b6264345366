package applypatch

import (
	"fmt"
	"strings"
)

// A Tally counts a review's selection: what the header, the file rows and the primary
// action show. It counts selected changes only, except Files and Total.
type Tally struct {
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
}

// Header renders the review's header, e.g.
// "ApplyPatch · 2 files · 3/4 changes · +3 −1 · 1 comment", with U+2212 as the minus sign
// and the singular for exactly 1.
func (t Tally) Header() string {
	word := "changes"
	if t.Total == 1 {
		word = "change"
	}
	h := fmt.Sprintf("ApplyPatch · %s · %d/%d %s · +%d −%d", plural(t.Files, "file"), t.Selected, t.Total, word, t.Added, t.Removed)
	if t.Comments > 0 {
		h += " · " + plural(t.Comments, "comment")
	}
	return h
}

// PrimaryLabel renders the label of the primary action: "Apply N changes in M files"
// (plus " · send K comments" with feedback staged), "Request revision · K comments" when
// only feedback is staged, "Reject patch" when nothing is selected or staged.
func (t Tally) PrimaryLabel() string {
	switch {
	case t.Selected > 0:
		l := fmt.Sprintf("Apply %s in %s", plural(t.Selected, "change"), plural(t.FilesSelected, "file"))
		if t.Comments > 0 {
			l += " · send " + plural(t.Comments, "comment")
		}
		return l
	case t.Comments > 0:
		return "Request revision · " + plural(t.Comments, "comment")
	}
	return "Reject patch"
}

// Tally counts the current selection.
func (s *Session) Tally() Tally {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tally()
}

// tally counts the selection. s.mu is held.
func (s *Session) tally() Tally {
	t := Tally{Files: len(s.pr.changes), Comments: s.pr.comments()}
	for _, c := range s.pr.changes {
		sel, total, added, removed := s.opCounts(c)
		t.Selected += sel
		t.Total += total
		if sel > 0 {
			t.FilesSelected++
			t.Added += added
			t.Removed += removed
		}
	}
	return t
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
	t, rows := s.tally(), s.rows()
	var b strings.Builder
	b.WriteString(t.Header() + "\n")
	if s.conflict != nil {
		b.WriteString("Conflict: " + s.conflict.Error() + "\n")
	}
	writeFeedback(&b, "  ", s.pr.feedback)
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
	label := t.PrimaryLabel()
	b.WriteString("\n[ " + label + " ]")
	if label != "Reject patch" {
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
