package applypatch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A textFault is the first byte of a text that no text file holds: one that is not part
// of valid UTF-8, or a NUL, which makes a file binary to the next patch of it. What a
// change writes is text, whether it comes in a payload, a patch built in Go, an edit or
// a person's revision: a file holding such a byte could no longer be patched.
type textFault struct {
	line int    // the 1-based line of the byte
	text string // that line
	col  int    // the byte's 1-based position in the line
	nul  bool
}

// findTextFault returns the first fault of s, or nil when s is text.
func findTextFault(s string) *textFault {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0 || (r == utf8.RuneError && size == 1) {
			break
		}
		i += size
	}
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s) - i
	}
	return &textFault{line: strings.Count(s[:start], "\n") + 1, text: s[start : i+end], col: i - start + 1, nul: s[i] == 0}
}

// String says what is wrong with the byte, and what to send instead.
func (f *textFault) String() string {
	if f.nul {
		return fmt.Sprintf("byte %d of the line is a NUL, which a text file never holds (one would make the file binary); remove it", f.col)
	}
	return fmt.Sprintf("byte %d of the line is not valid UTF-8; a patch is UTF-8 text, so send it as UTF-8 "+
		"(a file in another encoding is written in it when the host declares that encoding)", f.col)
}

// textProblem says which line of an operation's content or hunks is not text, or "".
func textProblem(op *Operation) string {
	for k, l := range op.Lines {
		if f := findTextFault(l); f != nil {
			return fmt.Sprintf("line %d of its content: %s", k+1, f)
		}
	}
	for k := range op.Hunks {
		h := &op.Hunks[k]
		for _, a := range append(slices.Clip(h.Within), h.Anchor) {
			if f := findTextFault(a); f != nil {
				return fmt.Sprintf("hunk %d, its anchor %q: %s", k+1, a, f)
			}
		}
		for j, l := range h.Lines {
			if f := findTextFault(l.Text); f != nil {
				return fmt.Sprintf("hunk %d, line %d: %s", k+1, j+1, f)
			}
		}
	}
	return ""
}
