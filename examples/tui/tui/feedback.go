package tui

import (
	"strings"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
)

// noteHeight is the feedback input's height in lines.
const noteHeight = 5

// feedback opens the feedback input on the row under the cursor: a hunk, or a file (R7).
func (m *model) feedback() tea.Cmd {
	r, ok := m.row()
	if !ok {
		return m.report(errNoRow)
	}
	title := "Feedback on " + r.Path
	if r.Target.Hunk > 0 {
		title = "Feedback on " + m.filePath(r.Target.File) + " @@ " + r.Label
	}
	return m.openNote(r.Target, title, r.Feedback)
}

// patchFeedback opens the feedback input on the whole patch.
func (m *model) patchFeedback() tea.Cmd {
	return m.openNote(applypatch.Target{}, "Feedback on the whole patch", m.s.View().Feedback)
}

// filePath returns the path shown on a file's row.
func (m *model) filePath(file int) string {
	for _, r := range m.s.View().Rows {
		if r.Target == (applypatch.Target{File: file}) {
			return r.Path
		}
	}
	return ""
}

// openNote opens the multi-line feedback input, holding the target's current feedback.
func (m *model) openNote(t applypatch.Target, title, current string) tea.Cmd {
	area := textarea.New()
	styles := textarea.DefaultDarkStyles()
	styles.Cursor.Blink = false
	area.SetStyles(styles)
	area.ShowLineNumbers = false
	area.Prompt = "│ "
	area.SetWidth(max(10, m.width-2))
	area.SetHeight(noteHeight)
	area.SetValue(current)
	m.note = &noteEditor{target: t, title: printable(title), had: current != "", area: area}
	return m.note.area.Focus()
}

// noteKey handles a key while the feedback input is open: C-s or C-c C-c stages the
// feedback, Esc or C-c C-k cancels, anything else edits the text.
func (m *model) noteKey(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if m.chord {
		m.chord = false
		switch key {
		case "ctrl+c":
			return m.stageNote()
		case "ctrl+k":
			return m.cancelNote()
		}
	}
	switch key {
	case "ctrl+s":
		return m.stageNote()
	case "esc":
		return m.cancelNote()
	case "ctrl+c":
		m.chord = true
		return nil
	}
	var cmd tea.Cmd
	m.note.area, cmd = m.note.area.Update(k)
	return cmd
}

// stageNote stages the typed feedback; empty text removes the target's feedback, if it
// had any. Feedback on a hunk, an Add, a Delete or a Move deselects it (R7).
func (m *model) stageNote() tea.Cmd {
	n := m.note
	text := n.area.Value()
	if strings.TrimSpace(text) == "" {
		if !n.had {
			m.setStatus("feedback cannot be empty: write what the model should change, or reject the change instead")
			return nil // the input stays open
		}
		m.note = nil
		if err := m.s.SetFeedback(n.target, ""); err != nil {
			return m.report(err)
		}
		m.setStatus("Feedback removed")
		return nil
	}
	if err := m.s.SetFeedback(n.target, text); err != nil {
		return m.report(err)
	}
	m.note = nil
	m.setStatus("Feedback staged")
	return nil
}

// cancelNote closes the input; the staged feedback stays as it was.
func (m *model) cancelNote() tea.Cmd {
	m.note = nil
	m.setStatus("Feedback not changed")
	return nil
}
