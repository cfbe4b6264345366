package applypatch

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
)

// headerTexts are the texts after "@@ " the header tests ask about: hints, unified-diff
// headers and near misses of each, then random strings of the characters they are
// made of.
func headerTexts() []string {
	out := []string{"", "0", "1", "7", "10", "01", "007", "12a", "a12", " 12", "12 ", "-1", "+1", "1.5", "١٢",
		"99999999999999999999999", "-12,5 +12,6 @@", "-12,5 +12,6 @@ func main() {", "-1 +1 @@",
		"-12 +12,6 @@x", "-12,5 +12,6", "-12,5 +12,6 @", "- 12 +12 @@", "-a,5 +12,6 @@", "12,5 +12,6 @@"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "-+, @0123456789a\t"
	for range 20000 {
		b := make([]byte, r.IntN(16))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		out = append(out, string(b))
	}
	return out
}

// TestHeaderPatterns: P8, P16, PERF5. A hunk header is read without compiling a pattern it
// cannot match: isHint says what the hint pattern says, and unified what the header
// pattern finds, for every text.
func TestHeaderPatterns(t *testing.T) {
	hint := regexp.MustCompile(`^[1-9][0-9]*$`)
	for _, s := range headerTexts() {
		if got, want := isHint(s), hint.MatchString(s); got != want {
			t.Errorf("isHint(%q) = %v, the pattern says %v", s, got, want)
		}
		if got, want := unified(s), unifiedHeader().FindStringSubmatch(s); !slices.Equal(got, want) {
			t.Errorf("unified(%q) = %q, the pattern finds %q", s, got, want)
		}
	}
}
