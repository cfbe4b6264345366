package applypatch

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error texts go to a terminal and into a model's context, so each has a budget whatever
// the payload asks for: a hostile payload cannot make one refusal megabytes long.
const (
	// errorBudget bounds the whole text of one error, a list of problems included.
	errorBudget = 48 << 10
	// problemBudget bounds one problem of a list, and one payload line an error quotes.
	problemBudget = 8 << 10
	// quotedLineBudget bounds the payload line a parse error quotes.
	quotedLineBudget = 256
)

// clip cuts s to at most n bytes, at a character boundary, ending with a line that says
// how much was cut; the marker is counted inside n.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	marker := fmt.Sprintf("\n[… %d more bytes of this message cut]", len(s))
	cut := max(n-len(marker), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… %d more bytes of this message cut]", len(s)-cut)
}

// clipLine cuts a quoted payload line to the start that identifies it.
func clipLine(s string) string { return clipLineTo(s, quotedLineBudget) }

// clipLineTo cuts a line to at most n bytes, at a character boundary, marking the cut.
func clipLineTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// joinProblems renders a list of problems under a heading, each within its own budget,
// and stops listing when the whole would pass the error budget, saying how many are left.
func joinProblems(heading string, errs []error) string {
	var b strings.Builder
	b.WriteString(heading)
	for i, err := range errs {
		item := "\n- " + strings.ReplaceAll(clip(err.Error(), problemBudget), "\n", "\n  ")
		if b.Len()+len(item) > errorBudget-256 {
			fmt.Fprintf(&b, "\n- and %s more problems not shown; fix those above and send the patch again to see the rest",
				groupThousands(len(errs)-i))
			break
		}
		b.WriteString(item)
	}
	return b.String()
}
