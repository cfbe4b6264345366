package match

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/applypatch/applypatch/internal/lines"
)

// Pass is the rung of the matching ladder that placed a hunk. Each rung
// compares lines after a looser normalisation than the one before.
type Pass int

const (
	// Exact compares lines as they are (line terminators aside).
	Exact Pass = iota
	// TrailingWhitespace ignores whitespace at the end of lines.
	TrailingWhitespace
	// SurroundingWhitespace ignores whitespace at both ends of lines.
	SurroundingWhitespace
	// Punctuation also folds typographic punctuation to ASCII (see typographicFold).
	Punctuation
)

// passes is the ladder, strictest first.
var passes = [...]Pass{Exact, TrailingWhitespace, SurroundingWhitespace, Punctuation}

// String returns how the pass matched, in the words of the model-visible result:
// "exact", "ignoring trailing whitespace", "ignoring surrounding whitespace" or
// "normalizing typographic punctuation".
func (p Pass) String() string {
	switch p {
	case TrailingWhitespace:
		return "ignoring trailing whitespace"
	case SurroundingWhitespace:
		return "ignoring surrounding whitespace"
	case Punctuation:
		return "normalizing typographic punctuation"
	}
	return "exact"
}

// Fuzzy reports whether the pass is looser than Exact.
func (p Pass) Fuzzy() bool { return p > Exact }

// FuzzyName is how a fuzzy pass matched, as a review row says it; "" for Exact.
func (p Pass) FuzzyName() string {
	if !p.Fuzzy() {
		return ""
	}
	return p.String()
}

// typographicFold is the one fold table of Punctuation: each character is
// compared as the ASCII text it maps to. It is the union of the tables of Codex, OpenCode
// and mevedel: dashes and the minus sign (U+2010–U+2015, U+2212), curly, low and prime
// quotes and guillemets (U+2018–U+201F, U+2032, U+2033, U+00AB, U+00BB), the ellipsis
// (U+2026, as "..."), and exotic spaces (U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000).
var typographicFold = map[rune]string{
	'\u2010': "-", '\u2011': "-", '\u2012': "-", '\u2013': "-", '\u2014': "-", '\u2015': "-",
	'\u2212': "-",
	'\u2018': "'", '\u2019': "'", '\u201A': "'", '\u201B': "'", '\u2032': "'",
	'\u201C': `"`, '\u201D': `"`, '\u201E': `"`, '\u201F': `"`, '\u2033': `"`,
	'\u00AB': `"`, '\u00BB': `"`,
	'\u2026': "...",
	'\u00A0': " ", '\u2000': " ", '\u2001': " ", '\u2002': " ", '\u2003': " ", '\u2004': " ",
	'\u2005': " ", '\u2006': " ", '\u2007': " ", '\u2008': " ", '\u2009': " ", '\u200A': " ",
	'\u202F': " ", '\u205F': " ", '\u3000': " ",
}

// normalize is the comparison key of a line at each pass.
var normalize = [...]func(string) string{
	Exact:                 func(s string) string { return s },
	TrailingWhitespace:    func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) },
	SurroundingWhitespace: strings.TrimSpace,
	Punctuation:           func(s string) string { return strings.TrimSpace(fold(s)) },
}

// Normalize returns the comparison key of line s at pass p: lines are equal at p when
// their keys are.
func (p Pass) Normalize(s string) string { return normalize[p](s) }

// fold applies the fold table, allocating only when the line has something to fold.
// Every other byte is copied as it is, in runs: most characters of a line that has
// something to fold are ASCII, and looking each up in the table cost a fuzzy index of
// 100,000 lines a third of its time.
func fold(s string) string {
	i, n, to := nextFold(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	for ; i >= 0; i, n, to = nextFold(s) {
		b.WriteString(s[:i])
		b.WriteString(to)
		s = s[i+n:]
	}
	b.WriteString(s)
	return b.String()
}

// nextFold finds the first character of s the fold table folds: its index, its width
// and what it folds to; the index is -1 when there is none. Every such character lies
// outside ASCII, between foldLow and foldHigh, so the table is asked about no other.
func nextFold(s string) (at, width int, to string) {
	for at = 0; ; at += width {
		i := lines.NonASCII(s[at:])
		if i < 0 {
			return -1, 0, ""
		}
		at += i
		var r rune
		r, width = utf8.DecodeRuneInString(s[at:])
		if r >= foldLow && r <= foldHigh {
			if to, ok := typographicFold[r]; ok {
				return at, width, to
			}
		}
	}
}

// foldLow and foldHigh bound the characters the fold table folds (a test holds them to
// the table).
const (
	foldLow  = '\u00A0'
	foldHigh = '\u3000'
)

// normalized returns the lines normalised for pass p, which the caller must not modify:
// for the exact pass, the lines themselves.
func normalized(lines []string, p Pass) []string {
	if p == Exact {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = normalize[p](l)
	}
	return out
}
