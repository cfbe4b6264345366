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

// checkPatch refuses a *Patch that no payload could have produced: a path with
// a control character or invalid UTF-8, or any field that [Format] cannot write so that
// [Parse] reads it back the same (a line holding a line break, a path with surrounding
// white space, an anchor that reads as a line hint, two operations on one path…). A
// patch Parse returned passes unchanged.
func checkPatch(p *Patch) error {
	for i := range p.Ops {
		op := &p.Ops[i]
		for _, name := range []string{op.Path, op.MoveTo} {
			if msg := pathProblem(name); msg != "" {
				return &ParseError{Msg: fmt.Sprintf("operation %d (%s %s): %s", i+1, op.Kind, show.Path(op.Path), msg)}
			}
		}
	}
	if parsedUnchanged(p) {
		return nil
	}
	back, err := Parse(Format(p))
	if err != nil {
		return &ParseError{Msg: "the patch cannot be written as payload text: " + err.Error()}
	}
	if len(back.Ops) != len(p.Ops) {
		return &ParseError{Msg: fmt.Sprintf("the patch has %d operations, but its payload text reads as %d", len(p.Ops), len(back.Ops))}
	}
	for i := range p.Ops {
		if what := opDiffers(&p.Ops[i], &back.Ops[i]); what != "" {
			return &ParseError{Msg: fmt.Sprintf("operation %d (%s %s): its %s would read back differently from its payload text; "+
				"build it as Parse would (one line per element, no surrounding white space on paths)", i+1, p.Ops[i].Kind, show.Path(p.Ops[i].Path), what)}
		}
	}
	return nil
}

// opDiffers names the first field of a that b does not hold, payload lines aside.
func opDiffers(a, b *Operation) string {
	switch {
	case a.Kind != b.Kind:
		return "kind"
	case a.Path != b.Path:
		return "path"
	case a.MoveTo != b.MoveTo:
		return "destination"
	case !slices.Equal(a.Lines, b.Lines):
		return "content"
	case len(a.Hunks) != len(b.Hunks):
		return "hunk count"
	}
	for k := range a.Hunks {
		ha, hb := &a.Hunks[k], &b.Hunks[k]
		if ha.Anchor != hb.Anchor || !slices.Equal(ha.Within, hb.Within) || ha.Hint != hb.Hint || ha.EOF != hb.EOF || !slices.Equal(ha.Lines, hb.Lines) {
			return fmt.Sprintf("hunk %d", k+1)
		}
	}
	return ""
}
