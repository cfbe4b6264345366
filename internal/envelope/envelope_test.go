package envelope

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPatternGuards: P2, PERF5. A wrapper's pattern is asked only about a line holding
// what every match of it holds, so a bare payload compiles none: no line the guard
// passes over is one the pattern matches.
func TestPatternGuards(t *testing.T) {
	texts := []string{"cat <<EOF", "<<'EOF'", `apply_patch <<"X"`, "<<-EOF", "cat <EOF", "EOF", "```", "```diff",
		" ````patch ", "``", "`` `", "*** Begin Patch", ""}
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
		if heredocOpen().MatchString(strings.TrimSpace(s)) && !strings.Contains(s, "<<") {
			t.Errorf("%q opens a heredoc, and the guard would pass it over", s)
		}
		if ts := strings.TrimSpace(s); fenceOpen().MatchString(ts) && !strings.HasPrefix(ts, "```") {
			t.Errorf("%q opens a fence, and the guard would pass it over", s)
		}
	}
}
