package applypatch

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// builtAddDiff is an Add's diff built line by line, as report writes it when the payload
// does not spell it.
func builtAddDiff(lines []string) string {
	f := FileResult{}
	d := diffWriter{f: &f}
	d.lines('+', lines)
	return d.b.String()
}

// TestAddedTextIsTheBuiltDiff: an Add's diff taken from the payload (PERF5) is exactly the
// diff built from its lines, whatever the payload's line endings and empty lines, and
// never the payload's text once the lines say something else.
func TestAddedTextIsTheBuiltDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		var body []string
		for range 1 + rng.IntN(6) {
			body = append(body, "+"+[...]string{"", "", "a", "  b c", "x\r", "@@"}[rng.IntN(6)])
		}
		eol := [...]string{"\n", "\n", "\r\n"}[rng.IntN(3)]
		payload := strings.Join(append(append([]string{"*** Begin Patch", "*** Add File: a.txt"}, body...), "*** End Patch", ""), eol)
		p, err := Parse(payload)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		ls := p.Ops[0].Lines
		want := builtAddDiff(ls)
		got, ok := addedText(payload, ls)
		if ok && got != want {
			t.Fatalf("trial %d: the payload's text %q differs from the diff %q", trial, got, want)
		}
		if eol == "\n" && !ok && strings.Join(ls, "") != "" && !strings.Contains(payload, "\r") {
			t.Fatalf("trial %d: a payload that spells the diff was not used: %q", trial, payload)
		}
		edited := append([]string(nil), ls...)
		edited[rng.IntN(len(edited))] += "!"
		if got, ok := addedText(payload, edited); ok && got != builtAddDiff(edited) {
			t.Fatalf("trial %d: edited lines still take the payload's text %q", trial, got)
		}
		if _, ok := addedText(strings.Clone(payload), ls); ok {
			t.Fatalf("trial %d: lines found in a payload they do not lie in", trial)
		}
	}
}
