package applypatch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/applypatch/applypatch/internal/show"
)

// pathProblem says what makes a payload path unusable, or "" when nothing does. A
// control character (U+0000–U+001F, U+007F, U+0080–U+009F) could rewrite a terminal line
// or forge a line of a result, and invalid UTF-8 cannot be shown faithfully, so neither
// is ever a file name the library writes.
func pathProblem(name string) string {
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(name[i:], "\uFFFD"):
			return fmt.Sprintf("the path is not valid UTF-8 (byte %d); name the file in UTF-8", i+1)
		case show.IsControl(r):
			return fmt.Sprintf("the path holds the control character %U (byte %d); name the file with printable characters only", r, i+1)
		}
	}
	return ""
}

// notUTF8 finds the first byte of s that is not part of valid UTF-8: its 1-based line,
// that line, and its 1-based position in the line; line is 0 when s is valid.
func notUTF8(s string) (line int, text string, col int) {
	if utf8.ValidString(s) {
		return 0, "", 0
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		end = len(s) - i
	}
	return strings.Count(s[:start], "\n") + 1, s[start : i+end], i - start + 1
}

// notUTF8Msg says that byte col of a text's line is not UTF-8, and what to send instead.
func notUTF8Msg(col int) string {
	return fmt.Sprintf("byte %d of the line is not valid UTF-8; a patch is UTF-8 text, so send it as UTF-8 "+
		"(a file in another encoding is written in it when the host declares that encoding)", col)
}

// textProblem says which line of an operation's content or hunks is not valid UTF-8, or
// "": what a change writes is text, and a file holding bytes that are not UTF-8 could no
// longer be patched.
func textProblem(op *Operation) string {
	for k, l := range op.Lines {
		if n, _, col := notUTF8(l); n > 0 {
			return fmt.Sprintf("line %d of its content: %s", k+1, notUTF8Msg(col))
		}
	}
	for k := range op.Hunks {
		h := &op.Hunks[k]
		for _, a := range append(slices.Clip(h.Within), h.Anchor) {
			if n, _, col := notUTF8(a); n > 0 {
				return fmt.Sprintf("hunk %d, its anchor %q: %s", k+1, a, notUTF8Msg(col))
			}
		}
		for j, l := range h.Lines {
			if n, _, col := notUTF8(l.Text); n > 0 {
				return fmt.Sprintf("hunk %d, line %d: %s", k+1, j+1, notUTF8Msg(col))
			}
		}
	}
	return ""
}

// checkPatch refuses a *Patch that no payload could have produced: a path with a
// control character or invalid UTF-8, or any field that [Format] cannot write so that
// [Parse] reads it back the same (a line holding a line break, a path with surrounding
// white space, an anchor that reads as a line hint, two operations on one path…). It
// checks each field directly, in one pass over the patch: no payload text is written or
// read, so a patch Parse returned costs a scan of its strings.
func checkPatch(p *Patch) error {
	if len(p.Ops) == 0 {
		return &ParseError{Msg: "the patch has no operations; add at least one Add, Update or Delete"}
	}
	claims := pathClaims{} // by the 1-based number of the operation
	for i := range p.Ops {
		op := &p.Ops[i]
		fail := func(format string, args ...any) error {
			return &ParseError{Msg: fmt.Sprintf("operation %d (%s %s): ", i+1, op.Kind, show.Path(op.Path)) + fmt.Sprintf(format, args...)}
		}
		for _, name := range []string{op.Path, op.MoveTo} {
			if msg := pathProblem(name); msg != "" {
				return fail("%s", msg)
			}
		}
		if msg := opProblem(op); msg != "" {
			return fail("%s; build it as Parse would", msg)
		}
		if msg := textProblem(op); msg != "" {
			return fail("%s", msg)
		}
		for k, name := range []string{op.Path, op.MoveTo} {
			if name == "" {
				continue
			}
			if prev, _, ok := claims.claim(name, i+1, op.Kind, k == 1); !ok {
				return fail("the path %s is already touched by operation %d; put all changes to one file in one operation", show.Path(name), prev)
			}
		}
	}
	return nil
}

// opProblem says what field of an operation no section of a payload can hold, or "".
func opProblem(op *Operation) string {
	if msg := payloadPathProblem("path", op.Path); msg != "" {
		return msg
	}
	switch op.Kind {
	case OpAdd:
		if len(op.Hunks) > 0 || op.MoveTo != "" {
			return "an Add has no hunks and no destination; its content is Lines"
		}
		for k, l := range op.Lines {
			if strings.ContainsRune(l, '\n') {
				return fmt.Sprintf("line %d of its content holds a line break; give one element per line", k+1)
			}
		}
		return ""
	case OpDelete:
		if len(op.Lines) > 0 || len(op.Hunks) > 0 || op.MoveTo != "" {
			return "a Delete has no content, hunks or destination"
		}
		return ""
	case OpUpdate:
		return updateProblem(op)
	}
	return fmt.Sprintf("its kind %q is none of %q, %q and %q", op.Kind, OpAdd, OpUpdate, OpDelete)
}

// payloadPathProblem says why a path cannot be written on a section header line, or "".
func payloadPathProblem(what, name string) string {
	switch {
	case name == "":
		return "its " + what + " is empty"
	case name != strings.TrimSpace(name):
		return "its " + what + " has surrounding white space, which a header line cannot hold"
	case namesDir(name):
		return "its " + what + " ends with a slash, so it names a directory"
	}
	return ""
}

// updateProblem says what field of an Update no payload can hold, or "".
func updateProblem(op *Operation) string {
	switch {
	case len(op.Lines) > 0:
		return "an Update has no Lines; its changes are Hunks"
	case op.MoveTo == "" && len(op.Hunks) == 0:
		return "an Update without a destination needs at least one hunk"
	case op.MoveTo == "" && allLocators(op.Hunks):
		return "every hunk is context only, so it changes nothing"
	}
	if op.MoveTo != "" {
		if msg := payloadPathProblem("destination", op.MoveTo); msg != "" {
			return msg
		}
		if cleanPath(op.MoveTo) == cleanPath(op.Path) {
			return "its destination is its own path; leave MoveTo empty for an update in place"
		}
	}
	for k := range op.Hunks {
		if msg := hunkProblem(&op.Hunks[k]); msg != "" {
			return fmt.Sprintf("hunk %d: %s", k+1, msg)
		}
	}
	return ""
}

// hunkProblem says what field of a hunk no "@@" chunk can hold, or "".
func hunkProblem(h *Hunk) string {
	switch {
	case len(h.Lines) == 0:
		return "it has no lines"
	case h.Hint < 0:
		return fmt.Sprintf("its line hint %d is negative; 0 means none", h.Hint)
	case len(h.Within) > 0 && h.Anchor == "":
		return "it has outer anchors (Within) but no Anchor"
	}
	for _, a := range h.chain() {
		if msg := anchorProblem(a); msg != "" {
			return msg
		}
	}
	for k, l := range h.Lines {
		switch {
		case l.Kind != LineContext && l.Kind != LineRemove && l.Kind != LineAdd:
			return fmt.Sprintf("line %d has the kind %q; use LineContext, LineRemove or LineAdd", k+1, rune(l.Kind))
		case strings.ContainsRune(l.Text, '\n'):
			return fmt.Sprintf("line %d holds a line break; give one element per line", k+1)
		}
	}
	return ""
}

// anchorProblem says why an anchor cannot be written as an "@@ TEXT" line that reads
// back as the same anchor, or "".
func anchorProblem(a string) string {
	switch {
	case a == "":
		return "an anchor of its chain is empty"
	case strings.ContainsRune(a, '\n'):
		return "an anchor holds a line break"
	case strings.TrimRight(a, " \t") != a:
		return fmt.Sprintf("the anchor %q ends with white space, which an '@@' line cannot hold", a)
	case hintText().MatchString(a):
		return fmt.Sprintf("the anchor %q reads as a line hint; set Hint instead", a)
	case unifiedHeader().MatchString(a):
		return fmt.Sprintf("the anchor %q reads as a unified-diff hunk header", a)
	}
	return ""
}
