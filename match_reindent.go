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
// and '-' lines all map to the file's by one indentMap that changes something, and that
// map gives every '+' line its indentation with certainty: a '+' line indented as one of
// the old lines gets that line's indentation in the file, and one indented otherwise
// gets the map's only where the old lines show two depths or more (at one depth, a shift
// and another indent width fit alike, and a '+' line at another depth could land at
// either). A model that sends a block outdented (or with
// spaces for the file's tabs) means its new lines at the same depth relative to the old
// ones; the file's own lines are never rewritten. Where that is not certain, and in a
// hunk of '+' lines around context at one depth (that context may have lost an
// indentation its '+' lines kept), the '+' lines are written as sent, and the result
// says to check them.
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
	seen := map[string]string{} // an indentation of the hunk's old lines → the file's
	for _, p := range pairs {
		seen[p[0]] = p[1]
	}
	if !ok || m == (indentMap{}) || !removed && len(seen) < 2 {
		return nil, "", false
	}
	out := slices.Clone(h.Lines)
	for i, l := range out {
		if l.Kind != LineAdd || strings.TrimSpace(l.Text) == "" {
			continue
		}
		ind := indentOf(l.Text)
		to, ok := seen[ind]
		if !ok && len(seen) > 1 {
			to, ok = m.apply(ind)
		}
		if !ok {
			return nil, "", false
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
