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
// map gives every '+' line its indentation with certainty: a '+' line indented as one
// of the old lines is gets that line's indentation in the file, and one at a depth no
// old line shows gets the map's only where the old lines leave no other reading (see
// extends). A model that sends a block outdented (or with
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
		switch {
		case ok:
		case m.width > 0 && ind == "":
			ok = true // no indentation is none under any width
		case m.extends(pairs):
			to, ok = m.apply(ind)
		}
		if !ok {
			return nil, "", false
		}
		out[i].Text = to + l.Text[len(ind):]
	}
	return out, m.String(), true
}

// extends reports whether the map, which the old lines' pairs agree on, also gives a
// '+' line at a depth none of them shows its indentation with certainty. A width map
// must have been seen at two depths (at one, "4 spaces for 2 tabs" fits a width of 2 and
// a width of 4 one level short alike). A shift must have been seen at two depths, each
// side indented with one kind of space, and by the same unit on both sides (the greatest
// common divisor of its depths): else a shift, another indent width and an alignment (an
// argument wrapped under its parenthesis, a tab then spaces) may fit the old lines alike,
// and put a deeper line at different places.
func (m indentMap) extends(pairs [][2]string) bool {
	depths := map[string]bool{}
	for _, p := range pairs {
		depths[p[0]] = true
	}
	if len(depths) < 2 {
		return false
	}
	if m.width > 0 {
		return true
	}
	unit := [2]int{}
	for _, p := range pairs {
		for side, ind := range p {
			if strings.Trim(ind, " ") != "" && strings.Trim(ind, "\t") != "" {
				return false // spaces and tabs in one indentation: an alignment
			}
			unit[side] = gcd(unit[side], len(ind))
		}
	}
	return unit[0] == unit[1]
}

// gcd is the greatest common divisor of a and b, with gcd(0, b) = b.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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
