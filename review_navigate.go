package applypatch

import (
	"errors"
	"io/fs"
)

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
		loc.Line = h.Place.line()
	}
	return loc, nil
}
