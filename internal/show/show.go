// Package show words things for a reader, often a model: text clipped to a budget,
// lists that end in "and N more", numbers with grouped thousands, plurals, paths quoted
// when they hold anything unusual, and widths in terminal columns.
//
// It holds no knowledge of patches or files and never decides anything; its callers
// choose what to say, and show only says it within bounds.
package show

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Texts go to a terminal and into a model's context, so each has a budget whatever
// the payload asks for: a hostile payload cannot make one refusal megabytes long.
const (
	// ErrorBudget bounds the whole text of one error, a list of problems included.
	ErrorBudget = 48 << 10
	// ProblemBudget bounds one problem of a list, and one payload line an error quotes.
	ProblemBudget = 8 << 10
	// QuotedLineBudget bounds the payload line a parse error quotes.
	QuotedLineBudget = 256
)

// Clip cuts s to at most n bytes, at a character boundary, ending with a line that says
// how much was cut; the marker is counted inside n.
func Clip(s string, n int) string {
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

// ClipLine cuts a quoted payload line to the start that identifies it.
func ClipLine(s string) string { return ClipLineTo(s, QuotedLineBudget) }

// ClipLineTo cuts a line to at most n bytes, at a character boundary, marking the cut.
func ClipLineTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// JoinProblems renders a list of problems under a heading, each within its own budget,
// and stops listing when the whole would pass the error budget, saying how many are left.
func JoinProblems(heading string, errs []error) string {
	var b strings.Builder
	b.WriteString(heading)
	for i, err := range errs {
		item := "\n- " + strings.ReplaceAll(Clip(err.Error(), ProblemBudget), "\n", "\n  ")
		if b.Len()+len(item) > ErrorBudget-256 {
			fmt.Fprintf(&b, "\n- and %s more problems not shown; fix those above and send the patch again to see the rest",
				Thousands(len(errs)-i))
			break
		}
		b.WriteString(item)
	}
	return b.String()
}

// IsControl reports the C0 and C1 control characters and DEL.
func IsControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// Unusual reports whether a path would mislead when shown raw: it is not valid
// UTF-8, holds a character that is not graphic (a control, a format or bidirectional
// mark, an invisible space), or starts or ends with white space.
func Unusual(name string) bool {
	if !utf8.ValidString(name) {
		return true
	}
	for _, r := range name {
		if r != ' ' && !unicode.IsGraphic(r) {
			return true
		}
	}
	return name != strings.TrimSpace(name)
}

// Path returns name as it is safe to show on a terminal or to a model: unchanged when
// it is plain, quoted in Go syntax (as [strconv.Quote] does, non-ASCII letters kept) when it
// holds anything unusual, so that no character can hide or rewrite what is shown.
func Path(name string) string {
	if !Unusual(name) {
		return name
	}
	return strconv.QuoteToGraphic(name)
}

// Paths applies [Path] to each name.
func Paths(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = Path(n)
	}
	return out
}

// OneBased turns 0-based line indexes into the 1-based numbers a reader sees.
func OneBased(cands []int) []int {
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = c + 1
	}
	return out
}

// WithMore lists lines, then how many more there are ("over" that many when counting
// stopped at its budget).
func WithMore(lines []int, more int, capped bool) string {
	switch {
	case capped:
		return JoinInts(lines) + " and over " + Thousands(more) + " more"
	case more > 0:
		return JoinInts(lines) + " and " + Thousands(more) + " more"
	}
	return JoinInts(lines)
}

// Thousands writes n with commas between groups of three digits: 199,995.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// PluralWord returns one when n is 1 and many otherwise.
func PluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JoinInts lists numbers separated by commas.
func JoinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// Plural renders "1 change" or "N changes".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// TruncateColumns cuts s to at most n display columns, the last being "…" when it cuts.
// East Asian wide and fullwidth characters take two columns.
func TruncateColumns(s string, n int) string {
	if Columns(s) <= n {
		return s
	}
	used := 0
	for i, r := range s {
		w := RuneColumns(r)
		if used+w > n-1 {
			return s[:i] + "…"
		}
		used += w
	}
	return s
}

// Columns is the width of s in terminal columns.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += RuneColumns(r)
	}
	return n
}

// RuneColumns is the width of r in terminal columns: 2 for East Asian wide and
// fullwidth characters, 1 otherwise.
func RuneColumns(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Reveal writes each character of s that would not show when printed as <U+XXXX>: a
// format character (a zero-width space, a byte-order mark, a bidirectional control) or a
// control other than a tab. A line quoted to show how it differs from another then shows
// the difference.
func Reveal(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden reports a character Reveal writes by its code.
func hidden(r rune) bool { return r != '\t' && (IsControl(r) || unicode.Is(unicode.Cf, r)) }
