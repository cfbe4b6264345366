package tui

import (
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/applypatch/applypatch"
	"github.com/charmbracelet/x/ansi"
)

// View draws the review: the header and any conflict at the top, the scrolling list of
// rows in the middle, and the status line, the open prompt, the keys and the actions at
// the bottom. While the patch is applied it is the session's one progress line.
func (m *model) View() tea.View {
	var content string
	if m.view.State == applypatch.StateOpen {
		content = strings.Join(append(append(append([]string{}, m.top...), m.vp.View()), m.bottom...), "\n")
	} else {
		content = m.s.Render()
	}
	v := tea.NewView(content)
	v.AltScreen = true
	return v
}

// refresh lays the frame out from one snapshot of the session: it is called after every
// message, so what the screen shows is always the session's state, and the header, the
// rows and the actions never come from two different states.
func (m *model) refresh() {
	m.view = m.s.View()
	rows := m.view.Rows
	m.cursor = visibleCursor(rows, m.cursor)
	m.top = m.topLines()
	m.bottom = m.bottomLines()
	body, first, last := m.body(rows)
	m.vp.SetWidth(m.width)
	m.vp.SetHeight(max(1, m.height-len(m.top)-len(m.bottom)))
	m.vp.SetContentLines(body)
	if m.follow {
		m.scrollTo(first, last)
	}
}

// visibleCursor keeps the cursor on a row that exists: a hunk hidden by folding or
// replaced by a revision falls back to its file's row.
func visibleCursor(rows []applypatch.Row, t applypatch.Target) applypatch.Target {
	file := applypatch.Target{File: t.File}
	var found, fileFound bool
	for _, r := range rows {
		found = found || r.Target == t
		fileFound = fileFound || r.Target == file
	}
	switch {
	case found:
		return t
	case fileFound:
		return file
	case len(rows) > 0:
		return rows[0].Target
	}
	return applypatch.Target{}
}

// scrollTo scrolls so that the cursor's row and, as far as they fit, its lines are in
// view; the row itself wins.
func (m *model) scrollTo(first, last int) {
	y, h := m.vp.YOffset(), m.vp.Height()
	if last >= y+h {
		y = last - h + 1
	}
	if first < y {
		y = first
	}
	m.vp.SetYOffset(y)
}

// topLines are the header and, after a failed submission, the conflict with what to do
// about it (X7).
func (m *model) topLines() []string {
	lines := []string{m.fit(styleHeader.Render(m.view.Header))}
	if err := m.view.Conflict; err != nil {
		lines = append(lines, m.wrap(styleConflict.Render("Conflict: "+printable(err.Error())))...)
		lines = append(lines, m.wrap(conflictHint(err))...)
	}
	return lines
}

// conflictHint says which keys recover from a failed submission.
func conflictHint(err error) string {
	switch {
	case errors.As(err, new(*applypatch.IncompleteRollbackError)):
		return "Rollback was incomplete. Inspect the listed paths before retrying."
	case errors.Is(err, &applypatch.ConflictError{}):
		return "Deselect the stale file with SPC to apply the rest, or C-c C-k to reject so the model re-reads it."
	}
	return "Deselect the change that no longer applies with SPC, or C-c C-k to reject so the model re-reads the file."
}

// bottomLines are the status line, the open prompt, the keys and the actions.
func (m *model) bottomLines() []string {
	var lines []string
	if m.status != "" {
		st := styleStatus
		if m.failed {
			st = styleError
		}
		lines = append(lines, m.wrap(st.Render(printable(m.status)))...)
	}
	switch {
	case m.ask != nil:
		lines = append(lines, m.wrap(styleAsk.Render(m.ask.prompt+" (y/n)"))...)
	case m.note != nil:
		lines = append(lines, m.fit(styleFeedback.Render("✎ "+m.note.title+":")))
		lines = append(lines, strings.Split(m.note.area.View(), "\n")...)
		lines = append(lines, m.fit(styleDim.Render("C-s or C-c C-c stage · Esc or C-c C-k cancel · empty text removes the feedback")))
	}
	lines = append(lines, m.keyLines()...)
	return append(lines, m.fit(actions(m.view.Action)))
}

// keyHelp lists the keys, mevedel's first.
var keyHelp = []string{
	"TAB fold", "SPC select", "RET visit", "e edit", "f feedback", "C-c C-c apply",
	"C-c C-k reject", "n/p move", "F patch feedback", "S-TAB fold all", "PgUp/PgDn scroll", "q quit",
}

// keyLines packs the key help into lines as wide as the terminal.
func (m *model) keyLines() []string {
	var lines []string
	line := "Keys:"
	for _, k := range keyHelp {
		next := line + " · " + k
		if line == "Keys:" {
			next = line + " " + k
		}
		if ansi.StringWidth(next) > m.width && line != "Keys:" {
			lines = append(lines, line)
			next = "     " + k
		}
		line = next
	}
	lines = append(lines, line)
	for i, l := range lines {
		lines[i] = m.fit(styleDim.Render(l))
	}
	return lines
}

// actions renders the action buttons: the primary action, live from the session (R6),
// and Reject all unless the primary action already rejects.
func actions(primary string) string {
	s := stylePrimary.Render("[ " + primary + " ]")
	if primary != "Reject patch" {
		s += "   [ Reject all ]"
	}
	return s
}

// body renders the rows with their lines and feedback, laid out as [applypatch.Session.Render]
// lays them out behind a two-column cursor gutter, and returns the first and last line of
// the cursor's row with its diff lines.
func (m *model) body(rows []applypatch.Row) (lines []string, first, last int) {
	lines = append(feedbackLines("  ", m.view.Feedback), "")
	for i, r := range rows {
		here := r.Target == m.cursor
		if here {
			first = len(lines)
		}
		lines = append(lines, rowLine(r, here))
		for _, l := range r.Lines {
			lines = append(lines, "  "+diffLine(l, r.Dimmed))
		}
		if r.Target.Hunk > 0 {
			lines = append(lines, feedbackLines("        ", r.Feedback)...)
		}
		if here {
			last = len(lines) - 1
		}
		if i+1 == len(rows) || rows[i+1].Target.Hunk == 0 {
			lines = append(lines, feedbackLines("    ", fileFeedback(rows, r.Target.File))...)
		}
	}
	return lines, first, last
}

// fileFeedback returns the feedback of a file's row.
func fileFeedback(rows []applypatch.Row, file int) string {
	for _, r := range rows {
		if r.Target == (applypatch.Target{File: file}) {
			return r.Feedback
		}
	}
	return ""
}

// feedbackLines renders staged feedback as "✎ first line" with the other lines indented
// under it.
func feedbackLines(indent, text string) []string {
	if text == "" {
		return nil
	}
	out := strings.Split(text, "\n")
	for i, l := range out {
		mark := "  "
		if i == 0 {
			mark = "✎ "
		}
		out[i] = styleFeedback.Render(indent + mark + printable(l))
	}
	return out
}

// rowLine renders a row as the session spells it ([applypatch.Row.String]), with a cursor
// mark in front and its parts tinted: the selection glyph, and the fuzzy, edited, folded
// and feedback marks. A row with nothing selected is dimmed.
func rowLine(r applypatch.Row, cursor bool) string {
	text := printable(r.String())
	prefix, glyph := "    ", r.Glyph
	if r.Target.Hunk == 0 {
		prefix = map[bool]string{true: "▶", false: "▼"}[r.Folded] + " "
	}
	text = strings.TrimPrefix(text, prefix+glyph)
	var tail string
	for _, mark := range rowMarks {
		if mark.on(r) && strings.HasSuffix(text, mark.text) {
			text = strings.TrimSuffix(text, mark.text)
			tail = mark.style.Render(mark.text) + tail
		}
	}
	body := text
	if r.Dimmed {
		body = styleDim.Render(text)
	}
	line := prefix + selectionStyles[glyph].Render(glyph) + body + tail
	if cursor {
		return styleCursor.Render("›") + " " + line
	}
	return "  " + line
}

// rowMarks are the marks a row ends with, last first, as [applypatch.Row.String] writes
// them.
var rowMarks = []struct {
	text  string
	style lipgloss.Style
	on    func(applypatch.Row) bool
}{
	{" ✎", styleFeedback, func(r applypatch.Row) bool { return r.Feedback != "" }},
	{" …", styleDim, func(r applypatch.Row) bool { return r.Target.Hunk > 0 && r.Folded }},
	{" · edited", styleEdited, func(r applypatch.Row) bool { return r.Revised }},
	{" · fuzzy", styleFuzzy, func(r applypatch.Row) bool { return r.Fuzzy != "" }},
}

// diffLine renders a diff line with its gutter (R3): added lines tinted green, removed
// red, context plain; all dimmed, untinted, when nothing of the row is selected.
func diffLine(l applypatch.DiffLine, dimmed bool) string {
	line := strings.TrimSuffix(l.String(), l.Text) + printable(l.Text)
	switch {
	case dimmed:
		return styleDim.Render(line)
	case l.Heading:
		return styleHeading.Render(line)
	}
	num, rest := line[:gutterNumber], line[gutterNumber:] // "   NNNNN " and "M │ TEXT"
	if tint, ok := lineTints[l.Kind]; ok {
		rest = tint.Render(rest)
	}
	return styleDim.Render(num) + rest
}

// gutterNumber is the width of a diff line's number column, spaces included.
const gutterNumber = len("   12345 ")

// lineTints colour added and removed lines.
var lineTints = map[applypatch.LineKind]lipgloss.Style{applypatch.LineAdd: styleAdded, applypatch.LineRemove: styleRemoved}

// fit cuts a line to the terminal's width.
func (m *model) fit(s string) string { return ansi.Truncate(s, m.width, "…") }

// wrap breaks text into lines as wide as the terminal.
func (m *model) wrap(s string) []string { return strings.Split(ansi.Wrap(s, m.width, ""), "\n") }
