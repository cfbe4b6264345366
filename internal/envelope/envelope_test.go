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

// P1: an error quotes a line of an indented payload as the payload has it: the
// indentation the envelope took away put back, a blank line shorter than it as it was,
// and the End line once, not twice indented.
func TestQuotePutsBackWhatDedentTookAway(t *testing.T) {
	b, err := Open("    *** Begin Patch\n    *** Add File: a\n    +x\n  \n    *** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range append(b.Lines, b.End) {
		got = append(got, b.Quote(l))
	}
	want := []string{"    *** Add File: a", "    +x", "  ", "    *** End Patch"}
	if !slices.Equal(got, want) {
		t.Errorf("quoted %q, want %q", got, want)
	}
	if b.Lines[0].Text != "*** Add File: a" || b.Lines[2].Text != "" {
		t.Errorf("the lines are %q, %q after dedent", b.Lines[0].Text, b.Lines[2].Text)
	}
	plain, err := Open("*** Begin Patch\n  +x\n*** End Patch\n")
	if err != nil || plain.Quote(plain.Lines[0]) != "  +x" {
		t.Errorf("a payload not dedented quotes %q, %v", plain.Quote(plain.Lines[0]), err)
	}
}
