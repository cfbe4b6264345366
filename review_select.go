package applypatch

import (
	"errors"
	"io/fs"
	"strings"
)

// Prompts a front end shows before a request clears staged feedback.
const (
	promptReselect     = "Reselect and clear its feedback?"
	promptReselectFile = "Reselect file and clear its feedback?"
	promptReselectAll  = "Reselect every change and clear its feedback?"
)

// unit is one indivisible selection unit: a hunk of an Update, or a whole Add, Delete or
// Move, with access to its selection and feedback.
type unit struct {
	selected *bool
	feedback *string
}

// units returns the selection units a target covers: one for a hunk or an indivisible
// operation, the changing hunks of an Update, every unit of the patch for Target{}. An
// undo's or a redo's file is kept back whole: a hunk of it stands for all of them, since
// a file reverted in part could be neither redone nor undone further; so is a rewrite
// that replaces its file whole.
func (s *Session) units(c *change, h *hunkChange) []unit {
	switch {
	case h != nil && (c.undoSpec != nil || c.whole):
		return s.units(c, nil)
	case h != nil:
		return []unit{{&h.Selected, &h.Feedback}}
	case c != nil && !c.divisible():
		return []unit{{&c.Selected, &c.Feedback}}
	case c != nil:
		var out []unit
		for _, h := range c.changing() {
			out = append(out, unit{&h.Selected, &h.Feedback})
		}
		return out
	}
	var out []unit
	for _, c := range s.pr.changes {
		out = append(out, s.units(c, nil)...)
	}
	return out
}

// Select selects a target, or with on false deselects it: a hunk, an operation (all of
// an Update's hunks) or, for the zero Target (the whole patch), every change. Units that carry feedback are
// selected only when confirm, asked the question, says yes ([DiscardFeedback] always
// does), and lose their feedback; deselecting keeps feedback, and confirm may be nil.
// Selecting what is selected does nothing.
//
// A front end's toggle, the space bar of a review, is Select(row.Target, row.Selected == 0,
// confirm) for a [Row] of the current [View], and Select(Target{}, view.Selected == 0,
// confirm) for the whole patch: whatever has something selected is deselected, anything
// else selected.
func (s *Session) Select(t Target, on bool, confirm func(prompt string) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	us, err := s.selectable(t)
	if err != nil {
		return err
	}
	if !on {
		deselect(us)
		return nil
	}
	return s.selectUnits(t, us, confirm)
}

// selectable checks the review is open and returns the units of a target.
func (s *Session) selectable(t Target) ([]unit, error) {
	if err := s.writable(t); err != nil {
		return nil, err
	}
	c, h, err := s.lookup(t)
	if err != nil {
		return nil, err
	}
	return s.units(c, h), nil
}

func deselect(us []unit) {
	for _, u := range us {
		*u.selected = false
	}
}

// selectUnits selects units, asking before it clears the feedback of deselected ones.
func (s *Session) selectUnits(t Target, us []unit, confirm func(prompt string) bool) error {
	asks := 0
	for _, u := range us {
		if !*u.selected && *u.feedback != "" {
			asks++
		}
	}
	if asks > 0 {
		prompt := promptReselect
		switch {
		case t.File == 0:
			prompt = promptReselectAll
		case t.Hunk == 0 && s.pr.changes[t.File-1].divisible():
			prompt = promptReselectFile
		}
		if confirm == nil || !confirm(prompt) {
			return &ReviewError{Reason: ReviewNeedsConfirm, Target: t, Prompt: prompt}
		}
	}
	for _, u := range us {
		if !*u.selected {
			*u.selected, *u.feedback = true, ""
		}
	}
	return nil
}

// SetFeedback stages feedback, which may span lines, on a target: on a hunk or on an
// Add, Delete or Move it also deselects the target; on an Update's file row or on
// the zero Target it leaves selection alone. It replaces earlier feedback on the target.
// Blank text removes the target's feedback and leaves selection as it is.
func (s *Session) SetFeedback(t Target, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(t); err != nil {
		return err
	}
	text = normalizeFeedback(text)
	c, h, err := s.lookup(t)
	switch {
	case err != nil:
		return err
	case c == nil:
		s.pr.feedback = text
	case h != nil && (c.undoSpec != nil || c.whole) && text != "":
		h.Feedback = text
		deselect(s.units(c, h))
	case h != nil:
		h.Feedback, h.Selected = text, h.Selected && text == ""
	case c.divisible():
		c.Feedback = text
	default:
		c.Feedback, c.Selected = text, c.Selected && text == ""
	}
	return nil
}

// normalizeFeedback turns CRLF into LF and trims surrounding blank space.
func normalizeFeedback(text string) string {
	return strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
}

// Fold folds or unfolds a target: a file hides or shows its hunk rows and lines, a
// hunk its lines; the zero Target folds or unfolds every file. Folding never changes selection
// or anything a result or card shows, and works until the review settles.
func (s *Session) Fold(t Target, folded bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateSettled {
		return reviewErr(reviewSettled, t, "")
	}
	c, h, err := s.lookup(t)
	switch {
	case err != nil:
		return err
	case c == nil:
		for _, c := range s.pr.changes {
			s.expanded[c] = !folded
		}
	case h != nil:
		s.folded[h] = folded
	default:
		s.expanded[c] = !folded
	}
	return nil
}

// Next returns the target of the visible row after t, or with back the row before it;
// from the zero Target, the first row (the last with back). Past either end it fails with
// reason [ReviewRefused] ("No next change", "No previous change"). A t hidden in a folded
// file counts from where it would be.
func (s *Session) Next(t Target, back bool) (Target, error) {
	if back {
		return s.step(t, -1)
	}
	return s.step(t, +1)
}

func (s *Session) step(t Target, dir int) (Target, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, err := s.lookup(t); err != nil {
		return Target{}, err
	}
	all, visible := s.allTargets()
	at := -1 // Target{} sits before the first row going forward, after the last going back
	if dir < 0 {
		at = len(all)
	}
	for i, u := range all {
		if u == t {
			at = i
		}
	}
	for i := at + dir; i >= 0 && i < len(all); i += dir {
		if visible[i] {
			return all[i], nil
		}
	}
	if dir > 0 {
		return Target{}, reviewErr(reviewNoRow, t, "No next change")
	}
	return Target{}, reviewErr(reviewNoRow, t, "No previous change")
}

// allTargets lists every row target in order, hidden hunk rows included, with whether
// each is visible. s.mu is held.
func (s *Session) allTargets() ([]Target, []bool) {
	var all []Target
	var visible []bool
	for i, c := range s.pr.changes {
		all, visible = append(all, Target{File: i + 1}), append(visible, true)
		if !c.divisible() {
			continue
		}
		for k := range c.changing() {
			all, visible = append(all, Target{File: i + 1, Hunk: k + 1}), append(visible, s.expanded[c])
		}
	}
	return all, visible
}

// A Location is where a front end opens a file to show a change.
type Location struct {
	// Path is the path as authored, for display.
	Path string
	// Name is the file's resolved name in the filesystem, for opening it. It may be a
	// private host path: never show it to a model or a remote guest.
	Name string
	// Line is the 1-based baseline line of a hunk; 1 for a whole file.
	Line int
}

// Visit returns where to open the file of a target: a hunk's baseline line, or the
// top of an operation's file (a Move's source). An Add has no file before the patch
// applies, and a file that is gone cannot be opened: both fail with reason [ReviewRefused].
func (s *Session) Visit(t Target) (Location, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, h, err := s.lookup(t)
	switch {
	case err != nil:
		return Location{}, err
	case c == nil:
		return Location{}, reviewErr(reviewNotVisitable, t, "choose a file or a hunk")
	case c.Op.Kind == OpAdd:
		return Location{}, reviewErr(reviewNotVisitable, t, "File is not created until the patch is applied")
	}
	if _, err := s.pr.files().Stat(c.name); errors.Is(err, fs.ErrNotExist) {
		return Location{}, reviewErr(reviewNotVisitable, t, c.Op.Path+" no longer exists")
	}
	loc := Location{Path: c.Op.Path, Name: c.name, Line: 1}
	if h != nil {
		loc.Line = h.Place.Line()
	}
	return loc, nil
}
