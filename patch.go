package applypatch

import (
	"slices"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/envelope"
)

// An OpKind says what an [Operation] does to its path.
type OpKind string

const (
	// OpAdd creates a file that must not exist yet.
	OpAdd OpKind = "add"
	// OpUpdate edits an existing file in place, or moves it when MoveTo is set.
	OpUpdate OpKind = "update"
	// OpDelete removes an existing file.
	OpDelete OpKind = "delete"
)

// A Patch is a parsed payload: its operations in payload order.
type Patch struct {
	Ops []Operation
}

// An Operation is one section of a payload: an Add, an Update (optionally moving the file),
// or a Delete. Paths are kept exactly as authored; they are resolved against the workspace
// by [Resolve].
type Operation struct {
	Kind OpKind
	// Path is the file the section names, as written in the payload.
	Path string
	// MoveTo is the destination of an Update with "*** Move to:", or "".
	MoveTo string
	// Lines is the content of an Add, one element per line, without the leading '+'.
	Lines []string
	// Hunks are the "@@" chunks of an Update, in payload order.
	Hunks []Hunk
	// Line is the 1-based payload line of the section header.
	Line int
}

// IsMove reports whether the operation is an Update that moves its file.
func (op *Operation) isMove() bool { return op.Kind == OpUpdate && op.MoveTo != "" }

// A Hunk is one "@@" chunk of an Update.
type Hunk struct {
	// Anchor is the text after "@@ ": a line (or the start of a line) that must appear
	// above the hunk. Empty when the hunk has none.
	Anchor string
	// Within are the anchors of the "@@ TEXT" lines written before Anchor's, outermost
	// first ("@@ class Foo" then "@@ def bar" is Within ["class Foo"], Anchor "def bar"):
	// each is looked for below the one before it, and Anchor below the last. Set only
	// together with Anchor.
	Within []string
	// Hint is a 1-based line number written as "@@ N", or 0.
	Hint int
	// EOF is set when the hunk ends with "*** End of File".
	EOF bool
	// Lines are the hunk's context, removed and added lines in order.
	Lines []Line
	// Line is the 1-based payload line of the "@@" (or of the hunk's first line when the
	// first hunk of an Update omits it).
	Line int
}

// Chain returns the hunk's anchors, outermost first: Within, then Anchor. It is empty
// when the hunk has no anchor.
func (h *Hunk) chain() []string {
	if h.Anchor == "" {
		return nil
	}
	return append(slices.Clip(h.Within), h.Anchor)
}

// chainLabel names a chain of anchors in a review row: "class Foo › def bar", each
// anchor without its indentation.
func chainLabel(chain []string) string {
	parts := make([]string, len(chain))
	for i, a := range chain {
		parts[i] = strings.TrimSpace(a)
	}
	return strings.Join(parts, " › ")
}

// LineKind says whether a hunk line is kept, removed or added.
type LineKind byte

const (
	// LineContext lines must be present in the file and are kept as the file has them.
	LineContext LineKind = ' '
	// LineRemove lines must be present in the file and are removed.
	LineRemove LineKind = '-'
	// LineAdd lines are added.
	LineAdd LineKind = '+'
)

// A Line is one line of a hunk, without its marker character.
type Line struct {
	Kind LineKind
	Text string
}

// Old returns the lines the hunk expects in the file: its context and removed lines.
func (h *Hunk) oldLines() []string { return h.side(LineRemove) }

func (h *Hunk) side(k LineKind) []string { return h.appendSide(make([]string, 0, len(h.Lines)), k) }

// appendSide appends the hunk's context lines and its lines of kind k to dst.
func (h *Hunk) appendSide(dst []string, k LineKind) []string {
	for _, l := range h.Lines {
		if l.Kind == LineContext || l.Kind == k {
			dst = append(dst, l.Text)
		}
	}
	return dst
}

// IsLocator reports whether the hunk only positions later hunks: it has context lines and
// changes nothing.
func (h *Hunk) isLocator() bool {
	for _, l := range h.Lines {
		if l.Kind != LineContext {
			return false
		}
	}
	return true
}

// counts returns the number of added and removed lines.
func (h *Hunk) counts() (added, removed int) {
	for _, l := range h.Lines {
		switch l.Kind {
		case LineAdd:
			added++
		case LineRemove:
			removed++
		}
	}
	return added, removed
}

// Format renders p as canonical payload text, which [Parse] reads back to an equal Patch
// (payload line numbers aside). A patch that Parse could not have produced (a path with a
// control character, a line holding a line break, an anchor that reads as a line hint,
// the checks [Resolve] makes of a patch built in Go), and a nil one, render as the empty
// string, which Parse refuses: no patch renders as text that reads as another.
func Format(p *Patch) string {
	if p == nil || checkPatch(p) != nil {
		return ""
	}
	return format(p)
}

// format renders p as Format does, unchecked: for the text a review card shows.
func format(p *Patch) string {
	var b strings.Builder
	eol := "\n"
	if p.hasTrailingCR() {
		// Parse strips one CR before each LF, so a line whose text ends in CR needs CRLF.
		eol = "\r\n"
	}
	w := func(parts ...string) {
		for _, s := range parts {
			b.WriteString(s)
		}
		b.WriteString(eol)
	}
	w(envelope.Begin)
	for i := range p.Ops {
		formatOp(&p.Ops[i], w)
	}
	w(envelope.End)
	return b.String()
}

func formatOp(op *Operation, w func(...string)) {
	switch op.Kind {
	case OpAdd:
		w(headerAdd, op.Path)
		for _, l := range op.Lines {
			w("+", l)
		}
	case OpDelete:
		w(headerDelete, op.Path)
	case OpUpdate:
		w(headerUpdate, op.Path)
		if op.MoveTo != "" {
			w(headerMove, op.MoveTo)
		}
		for i := range op.Hunks {
			formatHunk(&op.Hunks[i], w)
		}
	}
}

func formatHunk(h *Hunk, w func(...string)) {
	chain := h.chain()
	for _, a := range chain {
		w("@@ ", a)
	}
	switch {
	case h.Hint > 0:
		w("@@ ", strconv.Itoa(h.Hint))
	case len(chain) == 0:
		w("@@")
	}
	for _, l := range h.Lines {
		w(string(rune(l.Kind)), l.Text)
	}
	if h.EOF {
		w(markerEOF)
	}
}

func (p *Patch) hasTrailingCR() bool {
	cr := func(s string) bool { return strings.HasSuffix(s, "\r") }
	for _, op := range p.Ops {
		if cr(op.Path) || cr(op.MoveTo) {
			return true
		}
		for _, l := range op.Lines {
			if cr(l) {
				return true
			}
		}
		for _, h := range op.Hunks {
			if slices.ContainsFunc(h.chain(), cr) {
				return true
			}
			for _, l := range h.Lines {
				if cr(l.Text) {
					return true
				}
			}
		}
	}
	return false
}

// Payload markers and section headers.
const (
	markerEOF = "*** End of File"

	headerAdd    = "*** Add File: "
	headerUpdate = "*** Update File: "
	headerDelete = "*** Delete File: "
	headerMove   = "*** Move to: "
)
