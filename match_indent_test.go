package applypatch

import (
	"context"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// M5, M8: a hunk placed by ignoring the whitespace around lines is flagged when its '+'
// lines are indented unlike the file's lines around them: by the one mapping its old
// lines agree on (a level more or less, spaces for tabs), or by none.
func TestIndentUnlike(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		hunk       []Line
		want       bool
	}{
		{"same indentation", "\tif x {\n\t\ty()\n\t}\n",
			[]Line{{LineContext, "\tif x {"}, {LineRemove, "\t\ty()  "}, {LineAdd, "\t\tz()"}}, false},
		{"spaces for tabs", "build:\n\tgo build\n",
			[]Line{{LineContext, "build:"}, {LineRemove, "    go build"}, {LineAdd, "    go build -v"}}, true},
		{"spaces for tabs, added at top level", "build:\n\tgo build\n",
			[]Line{{LineContext, "build:"}, {LineRemove, "    go build"}, {LineAdd, "test:"}}, false},
		{"spaces for tabs, added with tabs", "build:\n\tgo build\n",
			[]Line{{LineContext, "build:"}, {LineRemove, "    go build"}, {LineAdd, "\t\tgo vet"}}, false},
		{"a level too little", "    def f(self):\n        return 1\n",
			[]Line{{LineContext, "def f(self):"}, {LineRemove, "    return 1"}, {LineAdd, "    return 2"}}, true},
		{"a level too little, blank added line", "    def f(self):\n        return 1\n",
			[]Line{{LineContext, "def f(self):"}, {LineRemove, "    return 1"}, {LineAdd, ""}}, false},
		{"context sent unindented, '+' lines indented as the file", "    def f(self):\n        return 1\n",
			[]Line{{LineContext, "def f(self):"}, {LineRemove, "return 1"}, {LineAdd, "        return 2"}}, false},
		{"old lines disagree", "a:\n  b\n      c\n",
			[]Line{{LineContext, "a:"}, {LineContext, "b"}, {LineRemove, "  c"}, {LineAdd, "  d"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hunk{Lines: tc.hunk}
			p := match.Place{Start: 0, Pass: match.SurroundingWhitespace}
			if got := indentUnlike(lines.Split(tc.file), h, p); got != tc.want {
				t.Errorf("indentUnlike = %v, want %v", got, tc.want)
			}
			p.Pass = match.TrailingWhitespace
			if indentUnlike(lines.Split(tc.file), h, p) {
				t.Error("flagged at a pass that keeps indentation")
			}
		})
	}
}

// S2, M5: a result's diff shows a fuzzy hunk's context and removed lines as the file held
// them (the dash, the indentation), which is what was replaced, and its added lines as
// written.
func TestFuzzyDiffShowsFileLines(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/n.txt", []byte("Old notes \u2014 to be replaced\n\tkeep\n"), 0o644)
	res, err := Apply(context.Background(), fsys, patch("*** Update File: n.txt", "@@", "-Old notes - to be replaced", "+New notes", " keep"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "@@\n-Old notes \u2014 to be replaced\n+New notes\n \tkeep"; res.Files[0].Diff != want {
		t.Errorf("diff = %q, want %q", res.Files[0].Diff, want)
	}
}

// TestIndentUnlikePlusOnly: a hunk of '+' lines below an anchor matched while ignoring
// its indentation has no old line to compare its '+' lines with, so they are judged by
// the file's line they go before: the note when they are indented otherwise, none when
// they are indented as it is (M8).
func TestIndentUnlikePlusOnly(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		plus       string
		want       bool
	}{
		{"indented as the line below", "class A:\n    x = 1\n    y = 2\n", "    z = 3", false},
		{"a level short of the line below", "    def f(self):\n        return 1\n", "    x = 1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Hunk{Lines: []Line{{LineAdd, tc.plus}}}
			p := match.Place{Start: 1, Pass: match.SurroundingWhitespace}
			if got := indentUnlike(lines.Split(tc.file), h, p); got != tc.want {
				t.Errorf("indentUnlike = %v, want %v", got, tc.want)
			}
		})
	}
}
