package applypatch

import (
	"fmt"
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

// quotePairs are the quotes a model wraps a path in when it writes one in prose: each
// opening quote with its closing one.
var quotePairs = map[rune]rune{'"': '"', '\'': '\'', '`': '`', '“': '”', '‘': '’', '«': '»'}

// quoted reports whether a payload's path is wrapped in a pair of quotes, and returns it
// without them: the whole path between one opening quote and its closing one, with
// neither inside it ('a' and 'b' is not a quoted path).
func quoted(name string) (string, bool) {
	for open, close := range quotePairs {
		inner, ok := strings.CutPrefix(name, string(open))
		if !ok {
			continue
		}
		inner, ok = strings.CutSuffix(inner, string(close))
		if ok && inner != "" && !strings.ContainsRune(inner, open) && !strings.ContainsRune(inner, close) {
			return inner, true
		}
	}
	return "", false
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

// addsHeader reports a '+' line that reads as a hunk header ("+@@ def f():"): as a
// hunk's first line it is far likelier a header sent with a stray '+' than a line for
// the file, and a payload refuses it there.
func addsHeader(l Line) bool {
	return l.Kind == LineAdd && (l.Text == "@@" || strings.HasPrefix(l.Text, "@@ "))
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
	case len(h.Within)+1 > maxChain:
		return fmt.Sprintf("it names %d anchors; a chain names at most %d, from the outermost enclosing line in", len(h.Within)+1, maxChain)
	case addsHeader(h.Lines[0]):
		return "its first line adds a line that reads as a hunk header, which a payload refuses there; put a context line above it"
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
	case isHint(a):
		return fmt.Sprintf("the anchor %q reads as a line hint; set Hint instead", a)
	case unified(a) != nil:
		return fmt.Sprintf("the anchor %q reads as a unified-diff hunk header", a)
	}
	return ""
}
