package envelope

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPatternGuards: P2, PERF5. A wrapper's pattern is asked only about a line holding
// what every match of it holds, so a bare payload compiles none: opensHeredoc and
// opensFence find what the patterns find, on every line.
func TestPatternGuards(t *testing.T) {
	texts := []string{"cat <<EOF", "<<'EOF'", `apply_patch <<"X"`, "<<-EOF", " cat <<EOF ", "cat <EOF", "EOF", "```",
		"```diff", " ````patch ", "``", "`` `", "*** Begin Patch", ""}
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "<'\"`-_ \tcatEOFdiff"
	for range 20000 {
		b := make([]byte, r.IntN(14))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := opensHeredoc(s), heredocOpen().FindStringSubmatch(strings.TrimSpace(s)); !slices.Equal(got, want) {
			t.Errorf("opensHeredoc(%q) = %q, the pattern finds %q", s, got, want)
		}
		if got, want := opensFence(s), fenceOpen().FindStringSubmatch(strings.TrimSpace(s)); !slices.Equal(got, want) {
			t.Errorf("opensFence(%q) = %q, the pattern finds %q", s, got, want)
		}
	}
}
