package applypatch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// reindented returns the hunk's lines with its '+' lines indented as the file indents,
// and what was done in words, when the hunk's whole text is indented otherwise than the
// file: it was placed by a pass that ignores the whitespace around lines, its context
// and '-' lines (one '-' line at least) all map to the file's by one indentMap that
// changes something, and that map covers the indentation of every '+' line, none of
// which is indented already as the file's line above it is. A model that sends a block
// outdented (or with spaces for the file's tabs) means its new lines at the same depth
// relative to the old ones; the file's own lines are never rewritten. Where its old
// lines alone lost their indentation (a '+' line indented as the file's line above it
// shows that), and in a hunk of '+' lines around context alone, where nothing tells the
// two apart, the '+' lines are left as sent.
func reindented(t *lines.Text, h *Hunk, p match.Place) ([]Line, string, bool) {
	if p.Pass < match.SurroundingWhitespace {
		return nil, "", false
	}
	var pairs [][2]string
	removed := false
	at := p.Start
	for _, l := range h.Lines[:len(h.Lines)-p.Trimmed] {
		if l.Kind == LineAdd {
			continue
		}
		if at < t.Count() && strings.TrimSpace(l.Text) != "" {
			pairs = append(pairs, [2]string{indentOf(l.Text), indentOf(t.Line(at))})
			removed = removed || l.Kind == LineRemove
		}
		at++
	}
	m, ok := mapping(pairs)
	if !ok || !removed || m == (indentMap{}) {
		return nil, "", false
	}
	out := slices.Clone(h.Lines)
	k, near := 0, pairs[0][1] // the old line last passed, and the file's indentation of it
	for i, l := range out {
		blank := strings.TrimSpace(l.Text) == ""
		switch {
		case l.Kind != LineAdd:
			if !blank && k < len(pairs) {
				near = pairs[k][1]
				k++
			}
			continue
		case blank:
			continue
		}
		ind := indentOf(l.Text)
		to, ok := m.apply(ind)
		if !ok || ind == near {
			return nil, "", false // indented as the file is, not as the hunk's old lines are
		}
		out[i].Text = to + l.Text[len(ind):]
	}
	return out, m.String(), true
}

// apply maps a '+' line's indentation as the old lines' maps to the file's; ok is false
// when the map does not cover it.
func (m indentMap) apply(ind string) (string, bool) {
	if m.width == 0 {
		rest, ok := strings.CutPrefix(ind, m.from)
		return m.to + rest, ok
	}
	hunkKind := map[string]string{"\t": " ", " ": "\t"}[m.fileKind]
	if strings.Trim(ind, hunkKind) != "" {
		return "", false
	}
	if m.fileKind == "\t" {
		if len(ind)%m.width != 0 {
			return "", false
		}
		return strings.Repeat("\t", len(ind)/m.width), true
	}
	return strings.Repeat(" ", len(ind)*m.width), true
}

// String says what the map does, for the result: "4 spaces added", "2 spaces for a tab".
func (m indentMap) String() string {
	if m.width > 0 {
		if m.fileKind == "\t" {
			return fmt.Sprintf("a tab for each %s", whitespace(strings.Repeat(" ", m.width)))
		}
		return fmt.Sprintf("%s for each tab", whitespace(strings.Repeat(" ", m.width)))
	}
	switch {
	case m.from == "":
		return whitespace(m.to) + " added"
	case m.to == "":
		return whitespace(m.from) + " removed"
	}
	return fmt.Sprintf("%s for %s", whitespace(m.to), whitespace(m.from))
}

// whitespace names a run of indentation: "4 spaces", "a tab", "2 tabs", or quoted.
func whitespace(s string) string {
	for _, c := range []struct{ ch, one, many string }{{" ", "a space", "spaces"}, {"\t", "a tab", "tabs"}} {
		if strings.Trim(s, c.ch) == "" {
			if len(s) == 1 {
				return c.one
			}
			return fmt.Sprintf("%d %s", len(s), c.many)
		}
	}
	return fmt.Sprintf("%q", s)
}

// indentNoteOf ends the note of a fuzzy hunk: what its '+' lines' indentation became,
// or that they are written as sent, indented unlike the file's lines around them.
func indentNoteOf(c *change, h *hunkChange) string {
	switch {
	case c.reindented[h] != "":
		return "; its '+' lines are indented as the file's lines it matched are (" + c.reindented[h] + ")"
	case h.indentUnlike:
		return "; its '+' lines are written as sent, indented unlike the file's lines around them: re-read the " +
			"file and check their indentation"
	}
	return ""
}
