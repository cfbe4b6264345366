package tui

import (
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/charmbracelet/x/ansi"
)

// R1, R2, R9: every kind of row, tinted, still spells exactly what the session's row says:
// the terminal adds colour and a cursor gutter, never different text.
func TestRowLinesSpellSessionRows(t *testing.T) {
	f := newFixture(t, map[string]string{
		"greet.go": greetFile,
		"old.txt":  "gone\n",
		"a.txt":    "caf\u00e9 \u2014 bar\n",
	}, patch(`*** Add File: new.md
+# New
*** Delete File: old.txt
*** Update File: a.txt
*** Move to: b.txt
@@
-café - bar
+café - baz`, strings.TrimSuffix(strings.TrimPrefix(greetPayload, "*** Begin Patch\n"), "\n*** End Patch\n")))
	f.press("shift+tab", "n", "n", "n", "n", "f")
	f.typeText("why?")
	f.press("ctrl+s", "n", "tab", "p", "p", "space")
	rows := f.s.View().Rows
	for _, r := range rows {
		for _, cursor := range []bool{false, true} {
			got := ansi.Strip(rowLine(r, cursor))
			want := "  " + r.String()
			if cursor {
				want = "› " + r.String()
			}
			if got != want {
				t.Errorf("row %v renders %q, want %q", r.Target, got, want)
			}
		}
	}
	screen := f.screen()
	for _, mark := range []string{"A new.md", "D old.txt", "R a.txt → b.txt", "· fuzzy", "✎", " …", "✗ "} {
		if !strings.Contains(screen, mark) {
			t.Errorf("the fixture shows no %q; it shows:\n%s", mark, screen)
		}
	}
}

// A payload or a file can hold control characters; the screen shows them as symbols, so
// no escape sequence from the patch reaches the terminal.
func TestControlCharactersAreShownNotSent(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: evil.txt\n+\x1b[2Jcleared\x07"))
	f.press("tab")
	f.showing("1 + │ ␛[2Jcleared␇")
	if strings.Contains(f.m.View().Content, "\x1b[2J") || strings.Contains(f.m.View().Content, "\x07") {
		t.Error("the view passes the payload's control characters to the terminal")
	}
}

// R3: added and removed lines are tinted; the lines of a deselected hunk are dimmed
// without tint.
func TestTints(t *testing.T) {
	added := diffLine(applypatch.DiffLine{Kind: applypatch.LineAdd, Num: 3, Text: "x"}, false)
	removed := diffLine(applypatch.DiffLine{Kind: applypatch.LineRemove, Num: 3, Text: "x"}, false)
	dimmed := diffLine(applypatch.DiffLine{Kind: applypatch.LineAdd, Num: 3, Text: "x"}, true)
	if added == removed || added == dimmed || removed == dimmed {
		t.Errorf("added, removed and dimmed lines render alike: %q %q %q", added, removed, dimmed)
	}
	for _, l := range []string{added, removed, dimmed} {
		if got := ansi.Strip(l); got != "       3 + │ x" && got != "       3 - │ x" {
			t.Errorf("line %q lost its gutter or text", ansi.Strip(l))
		}
	}
}
