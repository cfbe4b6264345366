package applypatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestStreamAgreesWithParse: H8. Fed any payload of the corpus in pieces split anywhere,
// a Stream reports along the way only operations and hunks that the whole payload's Parse
// has, in order, and its Close returns exactly what Parse returns.
func TestStreamAgreesWithParse(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	early := 0
	for name, payload := range freeformCorpus(t) {
		want, wantErr := Parse(payload)
		for split := range 3 {
			var s Stream
			seen := false
			for rest := payload; rest != ""; {
				n := min(len(rest), 1+r.IntN([]int{1, 7, 64}[split]))
				s.Write([]byte(rest[:n]))
				rest = rest[n:]
				got := s.Patch()
				if got == nil {
					continue
				}
				if wantErr != nil {
					continue // a payload Parse refuses may show its good start; Close refuses it
				}
				if msg := prefixOf(got, want); msg != "" {
					t.Fatalf("%s (split %d) after %d bytes: %s", name, split, len(payload)-len(rest), msg)
				}
				seen = seen || rest != ""
			}
			got, err := s.Close()
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !cmp.Equal(got, want) {
				t.Fatalf("%s: Close = %v, %v; Parse = %v, %v", name, got, err, want, wantErr)
			}
			if seen && split == 0 {
				early++
			}
		}
	}
	if early < 60 {
		t.Errorf("only %d payloads showed operations before their end", early)
	}
}

// prefixOf says how got is not a prefix of want: every operation but the last equal, the
// last equal or an Update whose hunks are the first of want's.
func prefixOf(got, want *Patch) string {
	if len(got.Ops) > len(want.Ops) {
		return fmt.Sprintf("%d operations, the payload has %d", len(got.Ops), len(want.Ops))
	}
	last := len(got.Ops) - 1
	for i := range last {
		if d := cmp.Diff(want.Ops[i], got.Ops[i]); d != "" {
			return fmt.Sprintf("operation %d differs (-whole +stream):\n%s", i+1, d)
		}
	}
	g, w := got.Ops[last], want.Ops[last]
	if len(g.Hunks) > len(w.Hunks) {
		return fmt.Sprintf("operation %d has %d hunks, the payload %d", last+1, len(g.Hunks), len(w.Hunks))
	}
	w.Hunks = w.Hunks[:len(g.Hunks)]
	if d := cmp.Diff(w, g, cmpopts.EquateEmpty()); d != "" {
		return fmt.Sprintf("operation %d in progress differs (-whole +stream):\n%s", last+1, d)
	}
	return ""
}

// TestStreamWorkBounded: H8, PERF4. A payload of one Update with 2,000 hunks, streamed a
// line at a time, is read at most a small multiple of its size: the section in progress
// is read again as it grows by an eighth, not at every hunk.
func TestStreamWorkBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "@@ func f%d() {\n-\told%d()\n+\tnew%d()\n", i, i, i)
	}
	b.WriteString("*** End Patch\n")
	payload := b.String()
	var s Stream
	shown := 0
	for _, line := range strings.SplitAfter(payload, "\n") {
		s.Write([]byte(line))
		if p := s.Patch(); p != nil {
			shown = max(shown, len(p.Ops[0].Hunks))
		}
	}
	t.Logf("read %d bytes for a %d-byte payload", s.read, len(payload))
	if s.read > 12*len(payload) {
		t.Errorf("the stream read %d bytes of a %d-byte payload", s.read, len(payload))
	}
	if shown < 1900 {
		t.Errorf("the stream showed at most %d of 2,000 hunks before the end", shown)
	}
	if p, err := s.Close(); err != nil || len(p.Ops[0].Hunks) != 2000 {
		t.Fatalf("Close = %v", err)
	}
}

// TestStreamIndentedHeaderDiffFileLines: H8. The "--- a/x" and "+++ b/x" lines of a
// unified diff under an indented Update header are file header lines, in the view along
// the way as in the whole parse: the header line is not a hunk line.
func TestStreamIndentedHeaderDiffFileLines(t *testing.T) {
	payload := "*** Begin Patch\n  *** Update File: n.txt\n--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -5 +5 @@\n e\n-f\n+F\n*** End Patch\n"
	want, err := Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	var s Stream
	for i := range len(payload) {
		s.Write([]byte{payload[i]})
		if got := s.Patch(); got != nil {
			if msg := prefixOf(got, want); msg != "" {
				t.Fatalf("after %d bytes: %s", i+1, msg)
			}
		}
	}
}
