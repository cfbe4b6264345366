package tui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
)

// reviewKeys are the keys of the review (mevedel's bindings, plus terminal movement).
var reviewKeys = map[string]func(*model) tea.Cmd{
	"tab":       (*model).fold,
	"shift+tab": (*model).foldAll,
	"space":     (*model).toggle,
	"enter":     (*model).visit,
	"e":         (*model).edit,
	"f":         (*model).feedback,
	"F":         (*model).patchFeedback,
	"n":         (*model).next,
	"down":      (*model).next,
	"j":         (*model).next,
	"p":         (*model).prev,
	"up":        (*model).prev,
	"k":         (*model).prev,
	"pgdown":    func(m *model) tea.Cmd { m.vp.PageDown(); m.follow = false; return nil },
	"pgup":      func(m *model) tea.Cmd { m.vp.PageUp(); m.follow = false; return nil },
	"right":     func(m *model) tea.Cmd { m.vp.ScrollRight(8); return nil },
	"left":      func(m *model) tea.Cmd { m.vp.ScrollLeft(8); return nil },
	"ctrl+c":    func(m *model) tea.Cmd { m.chord = true; m.setStatus("C-c- (C-c apply, C-k reject all)"); return nil },
	"q":         (*model).quit,
}

// chordKeys complete a C-c chord.
var chordKeys = map[string]func(*model) tea.Cmd{
	"ctrl+c": (*model).submit,
	"ctrl+k": (*model).reject,
}

// errNoRow is reported by keys that act on a row when the review shows none.
var errNoRow = errors.New("no change under the cursor")

// row returns the row under the cursor.
func (m *model) row() (applypatch.Row, bool) {
	for _, r := range m.s.View().Rows {
		if r.Target == m.cursor {
			return r, true
		}
	}
	return applypatch.Row{}, false
}

// fold folds or unfolds the row under the cursor: a file shows or hides its hunks or
// lines, a hunk its lines (R4).
func (m *model) fold() tea.Cmd {
	r, ok := m.row()
	if !ok {
		return m.report(errNoRow)
	}
	m.follow = true
	return m.report(m.s.Fold(r.Target, !r.Folded))
}

// foldAll unfolds every file when one is folded, else folds them all.
func (m *model) foldAll() tea.Cmd {
	folded := true
	for _, r := range m.s.View().Rows {
		if r.Target.Hunk == 0 && r.Folded {
			folded = false
		}
	}
	if folded {
		m.cursor = applypatch.Target{File: m.cursor.File}
	}
	m.follow = true
	return m.report(m.s.Fold(applypatch.Target{}, folded))
}

// toggle flips the selection of the row under the cursor (R4): a row with anything
// selected (a hunk, an Add, Delete or Move, an Update's file row with any hunk selected)
// is deselected, any other row selected, asking before it clears feedback (R7).
func (m *model) toggle() tea.Cmd {
	r, ok := m.row()
	if !ok {
		return m.report(errNoRow)
	}
	on := r.Selected == 0
	err := m.s.Select(r.Target, on, nil)
	if prompt, ok := needsConfirm(err); ok {
		m.confirm(prompt, func() tea.Cmd { return m.report(m.s.Select(r.Target, on, applypatch.DiscardFeedback)) }, nil)
		return nil
	}
	return m.report(err)
}

// visit shows where the row's change is, as the authored path and its baseline line
// (R11).
func (m *model) visit() tea.Cmd {
	loc, err := m.s.Visit(m.cursor)
	if err != nil {
		return m.report(err)
	}
	m.setStatus(fmt.Sprintf("%s:%d", loc.Path, loc.Line))
	return nil
}

// next and prev move the cursor between rows (R11).
func (m *model) next() tea.Cmd { return m.move(false) }
func (m *model) prev() tea.Cmd { return m.move(true) }

func (m *model) move(back bool) tea.Cmd {
	t, err := m.s.Next(m.cursor, back)
	if err != nil {
		return m.report(err)
	}
	m.cursor, m.follow = t, true
	return nil
}

// submit ends the program to apply the selection, or send the feedback (R10); the
// reviewer submits once the terminal is released (see [model.settle]).
func (m *model) submit() tea.Cmd {
	m.intent = intentSubmit
	return tea.Quit
}

// reject ends the program to reject the whole patch (R10).
func (m *model) reject() tea.Cmd {
	m.intent = intentReject
	return tea.Quit
}

// quit asks, then ends the program to abort the review: nothing is applied and the
// model is told the review was aborted.
func (m *model) quit() tea.Cmd {
	m.confirm("Quit and abort the review? Nothing is applied.", func() tea.Cmd {
		m.intent = intentAbort
		return tea.Quit
	}, nil)
	return nil
}
