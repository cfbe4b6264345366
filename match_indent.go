package applypatch

import (
	"strings"
	"unicode"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// An indentMap takes a hunk's indentation to the file's, as its old lines show it: the
// hunk's prefix from replaced by the file's to (a hunk indented one level too little or
// too much), or, when width is set, a run of width spaces for each tab or back (spaces
// where the file indents with tabs, or tabs where it uses spaces). The zero map changes
// nothing.
type indentMap struct {
	from, to string
	width    int
	fileKind string // for a width, the space the file indents with: "\t" or " "
}

// indentUnlike reports whether a hunk placed by a pass that ignores the whitespace
// around lines adds lines that may be indented unlike the file's lines around them
// (with no old line, see plusUnlike): its old lines are indented otherwise than the
// file's lines they matched, and a '+' line's indentation is not as it would be had the
// hunk been indented as the file is (by the one mapping every old line agrees on, or by
// none when they disagree), unless it is made of the file's own kind of indentation
// where the hunk's old lines use the other (tabs for spaces), or, where the old lines
// lost their indentation unevenly, it is indented as the file's line right above it
// (right below, before any old line): the '+' lines kept the file's. Where the old lines
// agree on one map, that a '+' line is indented as the file's line above it says
// nothing: a line nested one level deeper in an outdented hunk is too. Such lines are
// written as sent; the result tells the model to check them.
func indentUnlike(t *lines.Text, h *Hunk, p match.Place) bool {
	if p.Pass < match.SurroundingWhitespace {
		return false
	}
	var pairs [][2]string // the hunk's indentation and the file's, by non-blank old line
	added := false
	at := p.Start
	for _, l := range h.Lines {
		if l.Kind == LineAdd {
			added = added || strings.TrimSpace(l.Text) != ""
			continue
		}
		if at < t.Count() && strings.TrimSpace(l.Text) != "" {
			pairs = append(pairs, [2]string{indentOf(l.Text), indentOf(t.Line(at))})
		}
		at++
	}
	m, ok := mapping(pairs)
	switch {
	case !added:
		return false
	case len(pairs) == 0: // '+' lines below an anchor matched ignoring its indentation
		return plusUnlike(t, h, p.Start)
	case ok && m == (indentMap{}):
		return false
	}
	k, near := 0, "" // the old line last passed, and the file's indentation of it
	if len(pairs) > 0 {
		near = pairs[0][1]
	}
	for _, l := range h.Lines {
		blank := strings.TrimSpace(l.Text) == ""
		switch ind := indentOf(l.Text); {
		case l.Kind != LineAdd:
			if !blank && k < len(pairs) {
				near, k = pairs[k][1], k+1
			}
		case blank, !ok && ind == near: // old lines that lost their indentation unevenly
		case !ok || m.changes(ind):
			return true
		}
	}
	return false
}

// indentOf is the whitespace a line starts with.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeftFunc(s, unicode.IsSpace))]
}

// mapping finds the one indentMap every pair agrees on: the zero map when each pair is
// the same on both sides; else spaces for tabs of one width, where one side indents with
// spaces only and the other with tabs only; else a prefix replaced (what is left of both
// sides after their common end). ok is false when the pairs agree on none.
func mapping(pairs [][2]string) (indentMap, bool) {
	same := true
	for _, p := range pairs {
		same = same && p[0] == p[1]
	}
	if same {
		return indentMap{}, true
	}
	if m, ok := widened(pairs); ok {
		return m, true
	}
	return shifted(pairs)
}

// shifted is the prefix map the pairs agree on, if they do.
func shifted(pairs [][2]string) (indentMap, bool) {
	var m indentMap
	for i, p := range pairs {
		n := 0
		for n < len(p[0]) && n < len(p[1]) && p[0][len(p[0])-1-n] == p[1][len(p[1])-1-n] {
			n++
		}
		this := indentMap{from: p[0][:len(p[0])-n], to: p[1][:len(p[1])-n]}
		if i > 0 && this != m {
			return indentMap{}, false
		}
		m = this
	}
	return m, true
}

// widened is the map of spaces to tabs, or tabs to spaces, of one width that the pairs
// agree on, if they do.
func widened(pairs [][2]string) (indentMap, bool) {
	for _, tabs := range []bool{true, false} {
		m := indentMap{fileKind: map[bool]string{true: "\t", false: " "}[tabs]}
		fits := true
		for _, p := range pairs {
			spaces, tabbed := p[0], p[1]
			if !tabs {
				spaces, tabbed = p[1], p[0]
			}
			if strings.Trim(spaces, " ") != "" || strings.Trim(tabbed, "\t") != "" ||
				(len(tabbed) == 0) != (len(spaces) == 0) {
				fits = false
				break
			}
			if len(tabbed) == 0 {
				continue
			}
			w := len(spaces) / len(tabbed)
			if w*len(tabbed) != len(spaces) || m.width != 0 && w != m.width {
				fits = false
				break
			}
			m.width = w
		}
		if fits && m.width > 0 {
			return m, true
		}
	}
	return indentMap{}, false
}

// changes reports whether the map gives the indentation of a '+' line another one, or
// does not cover it.
func (m indentMap) changes(ind string) bool {
	if m.width == 0 {
		return m.from != m.to || !strings.HasPrefix(ind, m.from)
	}
	return strings.Trim(ind, m.fileKind) != "" // not indented as the file is already
}

// plusUnlike reports whether a hunk of '+' lines alone, inserted before line at of t,
// has a line indented unlike the file's line there (its last line, at the end), which
// the '+' lines of such a hunk, with no old line to compare, are judged by.
func plusUnlike(t *lines.Text, h *Hunk, at int) bool {
	if t.Count() == 0 {
		return false
	}
	near := indentOf(t.Line(min(at, t.Count()-1)))
	for _, l := range h.Lines {
		if l.Kind == LineAdd && strings.TrimSpace(l.Text) != "" && indentOf(l.Text) != near {
			return true
		}
	}
	return false
}

// indentNote ends the note of a fuzzy hunk whose '+' lines are indented unlike the
// file's lines around them.
var indentNote = map[bool]string{true: "; its '+' lines are written as sent, indented unlike the file's lines " +
	"around them: re-read the file and check their indentation"}
