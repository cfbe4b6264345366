package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/spf13/afero"
)

// blockSnippets are the files the block rule is checked on (M6), as the matcher's
// TestBlockEnds has them with the block each of their lines opens; here they seed
// FuzzResolveBlockAnchor.
var blockSnippets = []struct {
	name, file string
	markdown   bool
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
`},
	{name: "go function and its closing brace", file: `func a() {
	if x {
		y()
	}
}

func b() {}
type T struct {
	F int
}
`},
	{name: "c function with its brace on the next line", file: `static int
reset(struct dev *d)
{
	d->state = 0;
}
`},
	{name: "yaml mappings", file: `server:
  tls:
    cert: a.pem

    key: a.key
  port: 80
client:
  port: 81
`},
	{name: "markdown headings", markdown: true, file: "# Tool\n\n## Install\n\n```sh\n# not a heading\n```\n\n### Linux\nmake\n## Use\nrun\n"},
	{name: "markdown without the flag", file: "## Install\nmake\n## Use\n"},
}

// naiveBlockEnd is the block rule written out as SPEC M6 states it, line by line: the
// oracle of FuzzResolveBlockAnchor. A line that opens no block by indentation and is
// followed by a lone "{" at its own indentation takes that brace's block.
func naiveBlockEnd(lines []string, at int) int {
	if end := naiveIndentEnd(lines, at); end != at {
		return end
	}
	j := nextNonBlank(lines, at)
	if j < len(lines) && strings.TrimSpace(lines[j]) == "{" {
		d, _ := naiveIndent(lines[at])
		if dj, _ := naiveIndent(lines[j]); dj == d {
			if end := naiveIndentEnd(lines, j); end > j {
				return end
			}
		}
	}
	return at
}

// naiveIndentEnd is the indentation part of the block rule.
func naiveIndentEnd(lines []string, at int) int {
	d, _ := naiveIndent(lines[at])
	j := nextNonBlank(lines, at)
	if j == len(lines) {
		return at
	}
	if dj, _ := naiveIndent(lines[j]); dj <= d {
		return at
	}
	for k := nextNonBlank(lines, j); k < len(lines); k = nextNonBlank(lines, k) {
		if dk, _ := naiveIndent(lines[k]); dk <= d {
			return k
		}
	}
	return len(lines) - 1
}

// naiveIndent is the width of a line's leading whitespace, a tab reaching the next
// multiple of 8 as Python counts it, and whether the line is blank: the matcher's
// indentOf, restated for the oracle.
func naiveIndent(l string) (int, bool) {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += 8 - w%8
		case '\r', '\f', '\v':
		default:
			return w, false
		}
	}
	return w, true
}

func nextNonBlank(lines []string, i int) int {
	for i++; i < len(lines); i++ {
		if _, blank := naiveIndent(lines[i]); !blank {
			return i
		}
	}
	return i
}

// FuzzResolveBlockAnchor extends FuzzResolve with anchor blocks (M6): a hunk cut from
// the file, anchored by the header of the innermost block that holds it, resolves to
// its own place, or is refused exactly when more than one of its exact occurrences lie
// inside the block of a line that is the header's text.
func FuzzResolveBlockAnchor(f *testing.F) {
	for i, s := range blockSnippets {
		if !s.markdown {
			f.Add(s.file, uint8(i+2), uint8(i%3+1))
		}
	}
	f.Add("class A:\n    def f(self):\n        return 1\nclass B:\n    def f(self):\n        return 1\n", uint8(2), uint8(1))
	f.Add("func a() {\n\tx()\n}\nfunc a() {\n\tx()\n}\n", uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, file string, s, n uint8) {
		file = strings.ToValidUTF8(strings.ReplaceAll(file, "\x00", "0"), "?")
		file = strings.TrimPrefix(file, "\ufeff")
		lines := lines.Split(file).Strings()
		if len(lines) < 2 || len(lines) > 300 { // the oracle is cubic
			return
		}
		start := int(s)%(len(lines)-1) + 1
		size := min(int(n)%4+1, len(lines)-start)
		header := -1
		for h := start - 1; h >= 0 && header < 0; h-- {
			if strings.TrimSpace(lines[h]) != "" && naiveBlockEnd(lines, h) >= start {
				header = h
			}
		}
		if header < 0 {
			return
		}
		old := lines[start : start+size]
		if old[0] == lines[header] {
			return // a hunk that starts with its anchor's line is refused (M6), as the anchor names it too
		}
		var inBlocks []int
		for _, c := range occurrences(lines, old) {
			for a := range lines {
				if lines[a] == lines[header] && a < c && c <= naiveBlockEnd(lines, a) {
					inBlocks = append(inBlocks, c)
					break
				}
			}
		}
		h := Hunk{Anchor: lines[header], Lines: []Line{{LineRemove, old[0]}, {LineAdd, "\x01changed"}}}
		for _, l := range old[1:] {
			h.Lines = append(h.Lines, Line{LineContext, l})
		}
		fsys := afero.NewMemMapFs()
		if err := afero.WriteFile(fsys, "/f.txt", []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		op := Operation{Kind: OpUpdate, Path: "f.txt", Hunks: []Hunk{h}}
		if checkPatch(&Patch{Ops: []Operation{op}}) != nil {
			return // a header no payload can write as an anchor ("@@ 1" is a line hint, P8, P13)
		}
		pr, err := Resolve(context.Background(), fsys, &Patch{Ops: []Operation{op}}, nil)
		switch {
		case len(inBlocks) == 1 && err != nil:
			t.Fatalf("file %q, hunk at line %d under line %d: refused: %v", file, start+1, header+1, err)
		case len(inBlocks) == 1 && pr.changes[0].Hunks[0].Place.Start != start:
			t.Fatalf("file %q, hunk at line %d under line %d: placed at line %d", file, start+1, header+1, pr.changes[0].Hunks[0].Place.Start+1)
		case len(inBlocks) > 1 && !errors.Is(err, &MatchError{}):
			t.Fatalf("file %q, hunk at lines %v under line %d: want it refused, got %v", file, inBlocks, header+1, err)
		}
	})
}
