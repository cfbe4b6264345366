package match

import (
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
)

// blockSnippets are the files the block rule is checked on (M6): each names, for some
// lines, the last line of their block (1-based, inclusive). A line that opens nothing has
// the next non-blank line for its block, the first one indented no deeper.
var blockSnippets = []struct {
	name, file string
	markdown   bool
	ends       map[int]int
}{
	{name: "python class and methods", file: `class A:
    """Doc."""

    def f(self):
        return 1

    def g(self):
        if x:
            pass
        return 2
class B:
    pass
`, ends: map[int]int{1: 11, 4: 7, 7: 11, 8: 10, 11: 12, 2: 4}},
	{name: "go function and its closing brace", file: `func a() {
	if x {
		y()
	}
}

func b() {}
type T struct {
	F int
}
`, ends: map[int]int{1: 5, 2: 4, 7: 8, 8: 10}},
	{name: "c function with its brace on the next line", file: `static int
reset(struct dev *d)
{
	d->state = 0;
}
`, ends: map[int]int{2: 5, 3: 5, 1: 2}},
	{name: "c function with a preprocessor line at column 0", file: `int foo(void)
{
#ifdef DEBUG
	log("foo");
#endif
	int x = 1;
}

int bar(void)
{
`, ends: map[int]int{1: 7, 2: 7, 3: 5}},
	{name: "go function with a raw string at column 0", file: "func f() {\n\ts := `\nraw\n`\n\treturn s\n}\nfunc g() {\n\tif x {\n}\n", ends: map[int]int{1: 6, 8: 9, 7: 9}},
	{name: "python def with its parameters over several lines", file: `def f(
    a,
    b,
):
    x = 1
    return a


def g(
    a,
):
    x = 1
`, ends: map[int]int{1: 9, 4: 9, 9: 12}},
	{name: "go and typescript signatures over several lines", file: `func f(
	a int,
) error {
	x := 1
	return nil
}

export function g(
  a: number,
): number {
  return a;
}
`, ends: map[int]int{1: 6, 3: 6, 8: 12}},
	{name: "a call over several lines opens no body", file: `foo(
    a,
)
x = 1
y = 2
`, ends: map[int]int{1: 3}},
	{name: "yaml mappings", file: `server:
  tls:
    cert: a.pem

    key: a.key
  port: 80
client:
  port: 81
`, ends: map[int]int{1: 7, 2: 6, 3: 5, 6: 7, 7: 8}},
	{name: "markdown headings", markdown: true, file: "# Tool\n\n## Install\n\n```sh\n# not a heading\n```\n\n### Linux\nmake\n## Use\nrun\n", ends: map[int]int{1: 12, 3: 10, 9: 10, 11: 12, 6: 7}},
	{name: "markdown without the flag", file: "## Install\nmake\n## Use\n", ends: map[int]int{1: 2}},
	{name: "a body, then a lone brace", file: "if x:\n    y\n{\n    z\n}\n", ends: map[int]int{1: 3, 3: 5}},
	{name: "ini sections", file: "[one]\nk = 1\n\n[two]\nk = 1\n", ends: map[int]int{1: 2, 2: 4, 4: 5, 5: 5}},
}

// TestBlockEnds checks the block rule (M6) on Python, Go, C, YAML and Markdown.
func TestBlockEnds(t *testing.T) {
	for _, tt := range blockSnippets {
		t.Run(tt.name, func(t *testing.T) {
			b := blocks{t: lines.Split(tt.file), markdown: tt.markdown}
			for line, want := range tt.ends {
				if got := b.blockEnd(line-1) + 1; got != want {
					t.Errorf("block of line %d %q ends at line %d, want %d", line, b.t.Line(line-1), got, want)
				}
			}
		})
	}
}

// TestOpens checks which lines open a body rather than only having the next line for
// their block: with several lines named, only those can hold a hunk alone (M6).
func TestOpens(t *testing.T) {
	file := "[server]\nport = 80\n\nclass A:\n    def f(self):\n        return 1\nstatic int\nreset(void)\n{\n}\nlast:\n\n    deeper\n"
	want := map[int]bool{1: false, 2: false, 4: true, 5: true, 6: false, 7: false, 8: true, 9: false, 11: true, 13: false}
	b := blocks{t: lines.Split(file)}
	for line, w := range want {
		if got := b.opens(line - 1); got != w {
			t.Errorf("line %d %q: opens = %v, want %v", line, b.t.Line(line-1), got, w)
		}
	}
}

// TestClosedAnchor: only a non-blank text followed by a blank and "@@" is an anchor spelt
// "@@ TEXT @@" (M6); "@@" alone, glued to the text or closing nothing is not.
func TestClosedAnchor(t *testing.T) {
	for a, want := range map[string]string{
		"PRIMARY = { @@": "PRIMARY = {",
		"class A @@  ":   "class A",
		"def f():\t@@":   "def f():",
		"x @@ @@":        "x @@",
		"@@":             "",
		" @@":            "",
		"a@@":            "",
		"a @@x":          "",
		"func main() {}": "",
	} {
		got, ok := closed(a)
		if ok != (want != "") || got != want {
			t.Errorf("closed(%q) = %q, %v; want %q", a, got, ok, want)
		}
	}
}
