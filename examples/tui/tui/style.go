package tui

import (
	"strings"
	"unicode"

	"charm.land/lipgloss/v2"
)

// The palette uses the 16 ANSI colours, so the terminal's own theme decides the shades
// on light and dark backgrounds alike.
var (
	styleHeader   = lipgloss.NewStyle().Bold(true)
	styleCursor   = lipgloss.NewStyle().Bold(true).Reverse(true)
	styleDim      = lipgloss.NewStyle().Faint(true)
	styleAdded    = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleRemoved  = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleHeading  = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
	styleFuzzy    = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleEdited   = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
	styleFeedback = lipgloss.NewStyle().Foreground(lipgloss.Magenta)
	styleStatus   = lipgloss.NewStyle().Bold(true)
	styleConflict = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	styleError    = lipgloss.NewStyle().Foreground(lipgloss.Red)
	styleAsk      = lipgloss.NewStyle().Foreground(lipgloss.Yellow).Bold(true)
	stylePrimary  = lipgloss.NewStyle().Bold(true).Reverse(true)
)

// selectionStyles tints the selection glyphs ✓, ◐ and ✗.
var selectionStyles = map[string]lipgloss.Style{
	"✓": lipgloss.NewStyle().Foreground(lipgloss.Green),
	"◐": lipgloss.NewStyle().Foreground(lipgloss.Yellow),
	"✗": lipgloss.NewStyle().Foreground(lipgloss.Red),
}

// printable makes text from a payload or a file safe to put on a terminal: a tab becomes
// spaces, and any other control character (an escape sequence could recolour the screen
// or move the cursor) is shown as its Unicode control picture or as U+FFFD, as is an
// invisible formatting character (a bidirectional override could reorder a path).
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20:
			b.WriteRune(0x2400 + r) // ␀ … ␟
		case r == 0x7f:
			b.WriteRune('␡')
		case isControl(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 || unicode.Is(unicode.Cf, r) }
