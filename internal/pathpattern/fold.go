package pathpattern

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold returns the form of one path component that patterns compare.
// Case-insensitive filesystems open many spellings of one name, so two components
// are the same name when their folded forms are equal. Folding:
//
//   - drops the code points HFS+ ignores in names, and other invisible ones (zero-width
//     joiners and spaces, bidirectional marks, the word joiner, the soft hyphen, the
//     byte-order mark): ".g\u200cit" is ".git";
//   - applies compatibility normalisation (NFKC), so fullwidth forms are their ASCII
//     letters: "．git" and ".ｇｉｔ" are ".git";
//   - applies full Unicode case folding, so ".GIT", ".ſsh" (long s) and ".doc\u212Aer"
//     (Kelvin sign) are ".git", ".ssh" and ".docker";
//   - then maps each character through its upper case, as NTFS compares names, so
//     ".gıt" (dotless i) is ".git";
//   - drops trailing dots and spaces, which Windows ignores: ".git." and ".git " are ".git".
//
// A combining mark is a character of its own: ".gi\u0308t" (i with diaeresis) is not
// ".git", on any filesystem. "." and ".." are kept as they are.
func Fold(c string) string {
	if c == "." || c == ".." {
		return c
	}
	if isPlainASCII(c) {
		return strings.ToLower(strings.TrimRight(c, ". "))
	}
	c = strings.Map(dropInvisible, c)
	c = norm.NFKC.String(c)
	c = cases.Fold().String(c)
	c = strings.Map(func(r rune) rune { return unicode.ToLower(unicode.ToUpper(r)) }, c)
	return strings.TrimRight(c, ". ")
}

// isPlainASCII reports whether c is ASCII without control characters, the common case
// that needs no Unicode folding.
func isPlainASCII(c string) bool {
	for i := 0; i < len(c); i++ {
		if c[i] >= utf8.RuneSelf || c[i] < 0x20 {
			return false
		}
	}
	return true
}

// dropInvisible drops the code points a name comparison must not see.
func dropInvisible(r rune) rune {
	if ignorable(r) {
		return -1
	}
	return r
}

// ignorable reports the code points HFS+ drops when it compares names, and the other
// invisible format characters that only disguise a name.
func ignorable(r rune) bool {
	return (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) ||
		(r >= 0x2060 && r <= 0x206f) || r == 0xfeff || r == 0x00ad || r == 0x034f ||
		(r >= 0xfe00 && r <= 0xfe0f)
}
