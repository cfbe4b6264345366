package realpayload_test

import (
	"strings"
)

// The careful reader: what a person who knows what an anchor means would conclude from
// a hunk, independent of the library's code. A hunk is determinable when exactly one
// place fits it.

// indent returns the width of a line's leading whitespace (a tab to the next multiple of
// eight) and whether the line is blank.
func indent(l string) (int, bool) {
	w := 0
	for _, r := range l {
		switch r {
		case ' ':
			w++
		case '\t':
			w += 8 - w%8
		default:
			return w, false
		}
	}
	return w, true
}

func nextNonBlank(lines []string, i int) int {
	for i++; i < len(lines); i++ {
		if _, blank := indent(lines[i]); !blank {
			return i
		}
	}
	return i
}

// heading returns a Markdown heading's level, or 0.
func heading(l string) int {
	k := len(l) - len(strings.TrimLeft(l, "#"))
	if k == 0 || k > 6 || (len(l) > k && l[k] != ' ') {
		return 0
	}
	return k
}

// blockEnd is where the block a line opens ends (inclusive): for a Markdown heading the
// line before the next heading of its level or higher; otherwise the first later
// non-blank line indented no deeper, when the next non-blank line is deeper (a body);
// a line followed by a lone "{" at its own indentation takes the brace's block.
func blockEnd(lines []string, at int, markdown bool) int {
	if k := heading(lines[at]); markdown && k > 0 {
		fence := false
		for j := at + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "```") {
				fence = !fence
			}
			if h := heading(lines[j]); !fence && h > 0 && h <= k {
				return j - 1
			}
		}
		return len(lines) - 1
	}
	if end := indentEnd(lines, at); end != at {
		return end
	}
	if j := nextNonBlank(lines, at); j < len(lines) && strings.TrimSpace(lines[j]) == "{" {
		d, _ := indent(lines[at])
		if dj, _ := indent(lines[j]); dj == d {
			return indentEnd(lines, j)
		}
	}
	return at
}

func indentEnd(lines []string, at int) int {
	d, _ := indent(lines[at])
	j := nextNonBlank(lines, at)
	if j == len(lines) {
		return at
	}
	if dj, _ := indent(lines[j]); dj <= d {
		return at
	}
	for k := nextNonBlank(lines, j); k < len(lines); k = nextNonBlank(lines, k) {
		if dk, _ := indent(lines[k]); dk <= d {
			return k
		}
	}
	return len(lines) - 1
}

// enclosing returns the header of the innermost block holding line t, indented less
// than it (a heading in Markdown), or -1.
func enclosing(lines []string, t int, markdown bool) int {
	dt, _ := indent(lines[t])
	for h := t - 1; h >= 0; h-- {
		dh, blank := indent(lines[h])
		switch {
		case blank, markdown && heading(lines[h]) == 0, !markdown && dh >= dt:
			continue
		}
		if blockEnd(lines, h, markdown) >= t {
			return h
		}
	}
	return -1
}

// occurrences returns where lines old occur in the file, comparing lines by key.
func occurrences(lines, old []string, key func(string) string) []int {
	var out []int
	for s := 0; s+len(old) <= len(lines); s++ {
		ok := true
		for k := range old {
			if key(lines[s+k]) != key(old[k]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

// names reports whether a file line is named by an anchor: the line, or its start,
// ignoring surrounding whitespace.
func names(line, anchor string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), strings.TrimSpace(anchor))
}

// readerPlaces returns the places a careful reader would consider for a hunk whose
// expected lines occur at cands, under a chain of anchors, at or after cursor when any
// is: each anchor is looked for inside the blocks of the lines the one before names
// (below them, failing that), a line that is the anchor beating lines that only start
// with it; then the candidates inside the last anchor's blocks win, failing that those
// below them. The hunk must lie below its anchor.
func readerPlaces(lines []string, cands []int, chain []string, cursor int, markdown bool) []int {
	var after []int
	for _, c := range cands {
		if c >= cursor {
			after = append(after, c)
		}
	}
	if len(after) > 0 {
		cands = after
	}
	scope := []int{-1}
	for _, a := range chain {
		var in, below, whole []int
		for l := range lines {
			if !names(lines[l], a) || l <= scope[0] {
				continue
			}
			below = append(below, l)
			for _, s := range scope {
				if s < 0 || (l > s && l <= blockEnd(lines, s, markdown)) {
					in = append(in, l)
					break
				}
			}
		}
		next := in
		if len(next) == 0 {
			next = below
		}
		for _, l := range next {
			if strings.TrimSpace(lines[l]) == strings.TrimSpace(a) {
				whole = append(whole, l)
			}
		}
		if len(whole) > 0 {
			next = whole
		}
		if len(next) == 0 {
			return nil
		}
		scope = next
	}
	if len(chain) == 0 {
		return cands
	}
	var in, below []int
	for _, c := range cands {
		if c <= scope[0] {
			continue
		}
		below = append(below, c)
		for _, s := range scope {
			if c > s && c <= blockEnd(lines, s, markdown) {
				in = append(in, c)
				break
			}
		}
	}
	if len(in) > 0 {
		return in
	}
	if len(scope) > 1 {
		return nil // an anchor naming several lines, none of whose blocks holds the hunk
	}
	return below
}
