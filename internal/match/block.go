package match

import (
	"path"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
)

// blocks knows where the block of each line ends: by indentation, the lines after it up
// to and including the first non-blank line indented no deeper than it (a class body; a
// Go function and its closing brace; for a line that opens nothing, the next line that is
// not blank); for a Markdown heading, up to the next heading of the same or a higher
// level. It is computed for the whole file in one pass, on first use.
type blocks struct {
	t        *lines.Text
	markdown bool
	end      []int32 // end[i] is the last line of line i's block; i when it has none
	parent   []int32 // parent[i] is the nearest line above i whose block holds it, or -1
}

// enclosing returns the nearest line above at whose block holds it, or -1.
func (b *blocks) enclosing(at int) int {
	if b.parent == nil {
		b.blockEnd(0)
		b.parent = make([]int32, len(b.end))
		var open []int32 // the lines whose blocks are still open, innermost on top
		for i := range b.end {
			for len(open) > 0 && int(b.end[open[len(open)-1]]) < i {
				open = open[:len(open)-1]
			}
			b.parent[i] = -1
			if len(open) > 0 {
				b.parent[i] = open[len(open)-1]
			}
			if int(b.end[i]) > i {
				open = append(open, int32(i))
			}
		}
	}
	return int(b.parent[at])
}

// blockEnd returns the last line (0-based, inclusive) of the block line at opens.
func (b *blocks) blockEnd(at int) int {
	if b.end == nil {
		lines := b.t.Strings()
		b.end = indentBlocks(lines)
		if b.markdown {
			headingBlocks(lines, b.end)
		}
	}
	return int(b.end[at])
}

// bodyLast returns the last line of the body line a opens: its block's last line when
// that closes the body (a brace, "end"), else, when that line opens a body of its own
// (the next class or function, where indentation alone ends the body), the last line
// before it that is not blank.
func (b *blocks) bodyLast(a int) int {
	end := b.blockEnd(a)
	if end <= a || !b.opens(end) {
		return end
	}
	last := end - 1
	for last > a && strings.TrimSpace(b.t.Line(last)) == "" {
		last--
	}
	return last
}

// opens reports whether line at opens a body (a class, a function, a nested mapping, a
// brace on the next line) rather than only having the next line for its block: the next
// non-blank line is indented deeper, or the block goes on past it.
func (b *blocks) opens(at int) bool {
	end := b.blockEnd(at)
	j := at + 1
	for j <= end && j < b.t.Count() && strings.TrimSpace(b.t.Line(j)) == "" {
		j++
	}
	if j > end || j >= b.t.Count() {
		return false
	}
	dj, _ := indentOf(b.t.Line(j))
	da, _ := indentOf(b.t.Line(at))
	return dj > da || end > j
}

// indentBlocks computes every line's block by indentation: a non-blank line's block
// ends at the first non-blank line below it indented no deeper than it, or at the end of
// the file; a blank line has none (it ends at itself). Blocks nest or are disjoint. It
// works for all lines at once with a stack of the lines still open, deepest on top.
func indentBlocks(lines []string) []int32 {
	end := make([]int32, len(lines))
	var open []int32
	var depth []int
	for i, l := range lines {
		end[i] = int32(i)
		d, blank := indentOf(l)
		if blank {
			continue
		}
		for len(open) > 0 && depth[len(depth)-1] >= d {
			end[open[len(open)-1]] = int32(i)
			open, depth = open[:len(open)-1], depth[:len(depth)-1]
		}
		open, depth = append(open, int32(i)), append(depth, d)
	}
	for _, o := range open {
		end[o] = int32(len(lines) - 1)
	}
	closeBlocks(lines, end)
	braceBlocks(lines, end)
	continuedBlocks(lines, end)
	return end
}

// continuedBlocks gives a line that opens a bracket it does not close, whose block by
// indentation ends at a line that closes it and opens a body (a signature written over
// several lines: "def f(" … "):", "func f(" … ") error {"), the block of that closing
// line: the parameters, the body and its end, as for a signature on one line. Bottom up,
// so a header whose closing line is itself continued takes the whole of it.
func continuedBlocks(lines []string, end []int32) {
	for i := len(lines) - 1; i >= 0; i-- {
		e := int(end[i])
		if e == i || e >= len(lines) || !opensBracket(lines[i]) {
			continue
		}
		closing := strings.TrimSpace(lines[e])
		if !strings.HasPrefix(closing, ")") && !strings.HasPrefix(closing, "]") {
			continue
		}
		di, _ := indentOf(lines[i])
		de, _ := indentOf(lines[e])
		if de != di || int(end[e]) == e {
			continue
		}
		next := e + 1
		for next < len(lines) && strings.TrimSpace(lines[next]) == "" {
			next++
		}
		if dn, _ := indentOf(lines[min(next, len(lines)-1)]); next < len(lines) && dn > de {
			end[i] = end[e] // the closing line opens a body: the header's block holds it
		}
	}
}

// opensBracket reports whether a line opens more round or square brackets than it
// closes.
func opensBracket(l string) bool {
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '(', '[':
			n++
		case ')', ']':
			n--
		}
	}
	return n > 0
}

// closeBlocks gives a line that opens a brace (it ends with "{", or is a lone "{") the
// lines up to its closing brace: where its block by indentation ends at a line that does
// not close it (a preprocessor line or a raw string at column 0 inside a C or Go
// function), the block goes on to the first line below, indented no deeper, that starts
// with "}". The search looks at no more than closeLook closing lines for each, so a
// hostile text costs linear time; a line whose brace is not found keeps its block.
func closeBlocks(lines []string, end []int32) {
	var closing []int32 // the lines that start with "}", in order
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "}") {
			closing = append(closing, int32(i))
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		e := int(end[i])
		if !strings.HasSuffix(t, "{") || e == i || strings.HasPrefix(strings.TrimSpace(lines[e]), "}") {
			continue
		}
		d, _ := indentOf(l)
		k, _ := slices.BinarySearch(closing, int32(e))
		for n := 0; k < len(closing) && n < closeLook; k, n = k+1, n+1 {
			if dc, _ := indentOf(lines[closing[k]]); dc <= d {
				end[i] = closing[k]
				break
			}
		}
	}
}

// closeLook bounds the closing lines closeBlocks looks at for one line.
const closeLook = 256

// braceBlocks gives a line followed by a lone "{" at its own indentation (a C function
// written in the style that puts the brace on a line of its own) the brace's block.
func braceBlocks(lines []string, end []int32) {
	for i := 0; i+1 < len(lines); i++ { // top down: end[j] below is still by indentation
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j == len(lines) || int(end[i]) != j || strings.TrimSpace(lines[j]) != "{" {
			continue // the brace must be the next line that is not blank, with no body before it
		}
		di, blank := indentOf(lines[i])
		if dj, _ := indentOf(lines[j]); !blank && di == dj && int(end[j]) > j {
			end[i] = end[j]
		}
	}
}

// tabWidth is how far a tab indents, as Python counts it.
const tabWidth = 8

// indentOf returns the width of a line's leading whitespace, and whether the line is
// blank.
func indentOf(l string) (int, bool) {
	w := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			w++
		case '\t':
			w += tabWidth - w%tabWidth
		case '\r', '\f', '\v':
		default:
			return w, false
		}
	}
	return w, true
}

// headingBlocks gives each Markdown heading the lines up to the next heading of the same
// or a higher level (or the end of the file). Lines inside fenced code blocks are not
// headings: a shell comment in a code sample does not end a section.
func headingBlocks(lines []string, end []int32) {
	var open []int32
	var level []int
	fence := ""
	for i, l := range lines {
		if f := fenceMarker(l); f != "" {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(l, " "+f[:1])) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		k := headingLevel(l)
		if k == 0 {
			continue
		}
		for len(open) > 0 && level[len(level)-1] >= k {
			end[open[len(open)-1]] = int32(i - 1)
			open, level = open[:len(open)-1], level[:len(level)-1]
		}
		open, level = append(open, int32(i)), append(level, k)
	}
	for _, o := range open {
		end[o] = int32(len(lines) - 1)
	}
}

// headingLevel returns the level of an ATX Markdown heading ("## Install" is 2), or 0.
func headingLevel(l string) int {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return 0
	}
	k := len(t) - len(strings.TrimLeft(t, "#"))
	if k == 0 || k > 6 || (len(t) > k && t[k] != ' ' && t[k] != '\t') {
		return 0
	}
	return k
}

// fenceMarker returns the run of backticks or tildes (three or more) a Markdown code
// fence line starts with, or "".
func fenceMarker(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return ""
	}
	return t[:n]
}

// markdownExts are the file name extensions whose headings open blocks.
var markdownExts = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".mkd": true, ".mdown": true}

// isMarkdown reports whether a file name names a Markdown document.
func isMarkdown(name string) bool {
	return markdownExts[strings.ToLower(path.Ext(strings.ReplaceAll(name, "\\", "/")))]
}
