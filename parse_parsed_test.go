package applypatch

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestParsedPatchChangedInGoIsChecked: P14. A patch Parse returned passes the check; the
// same patch changed in Go so that Format could not write it back is refused like any
// Go-built patch.
func TestParsedPatchChangedInGoIsChecked(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@ func f\n a\n-b\n+B\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPatch(p); err != nil {
		t.Fatalf("parsed patch refused: %v", err)
	}
	p.Ops[0].Hunks[0].Lines[1].Text = "b\n+smuggled"
	if err := checkPatch(p); err == nil {
		t.Fatal("a parsed patch with a line break put into a line was accepted")
	}
}

// roundTrips reports whether Parse reads Format's text of p back as p, payload line
// numbers aside: the oracle checkPatch must agree with.
func roundTrips(p *Patch) bool {
	back, err := Parse(Format(p))
	if err != nil {
		return false
	}
	return cmp.Equal(p, back, cmpopts.EquateEmpty(),
		cmpopts.IgnoreFields(Operation{}, "Line"), cmpopts.IgnoreFields(Hunk{}, "Line"))
}

// trickyText are the strings a Go-built patch may hold that a payload line reads
// differently, or not at all, next to plain ones.
var trickyText = []string{"", "a", "b", " a", "a ", "a\t", "\ta", "12", "0", "007", "-1",
	"-3,2 +3,4 @@ f", "-3 +3 @@", "*** End Patch", "*** End of File", "*** Add File: x", "@@", "@@ f",
	"a\r", "a\rb", "a\nb", "+", "-", " ", "func f() {", "a/", "dir/a", "./a", "a\\b", "é"}

// randomPatch builds a patch of one to three operations from trickyText, with every
// field of an operation and a hunk set at random, valid or not.
func randomPatch(r *rand.Rand) *Patch {
	plain := []string{"a", "b", "func f() {", "}", ""}
	pick := func() string {
		if r.IntN(4) == 0 {
			return trickyText[r.IntN(len(trickyText))]
		}
		return plain[r.IntN(len(plain))]
	}
	maybe := func() string {
		if r.IntN(3) == 0 {
			return pick()
		}
		return ""
	}
	kinds := []OpKind{OpAdd, OpUpdate, OpDelete, OpUpdate, OpUpdate, OpAdd, OpDelete, OpUpdate, OpUpdate, "rename"}
	lineKinds := []LineKind{LineContext, LineRemove, LineAdd, LineAdd, LineContext, LineRemove, LineAdd, LineAdd, LineContext, '!'}
	paths := []string{"a.txt", "b.txt", "dir/c.txt", "f.txt", "g.txt", "a.txt", " d.txt", "e.txt ", "dir/", "./b.txt", ""}
	p := &Patch{}
	for range 1 + r.IntN(3) {
		op := Operation{Kind: kinds[r.IntN(len(kinds))], Path: paths[r.IntN(len(paths))]}
		if r.IntN(4) == 0 {
			op.MoveTo = paths[r.IntN(len(paths))]
		}
		for range r.IntN(3) * r.IntN(2) {
			op.Lines = append(op.Lines, pick())
		}
		for range r.IntN(3) {
			h := Hunk{Anchor: maybe(), EOF: r.IntN(4) == 0}
			if r.IntN(4) == 0 {
				h.Hint = r.IntN(4) - 1
			}
			for range r.IntN(2) * r.IntN(3) {
				h.Within = append(h.Within, pick())
			}
			for range r.IntN(4) {
				h.Lines = append(h.Lines, Line{Kind: lineKinds[r.IntN(len(lineKinds))], Text: pick()})
			}
			op.Hunks = append(op.Hunks, h)
		}
		if op.Kind != OpUpdate && r.IntN(2) == 0 {
			op.Hunks = nil // an Add or a Delete as a payload has them
		}
		p.Ops = append(p.Ops, op)
	}
	return p
}

// TestCheckPatchAgreesWithRoundTrip: P14. checkPatch tells a patch Format can write back
// by looking at its fields; over many random patches full of strings a payload line
// cannot hold, it passes exactly those that Parse reads back from Format's text.
func TestCheckPatchAgreesWithRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 17))
	accepted := 0
	for trial := range 20_000 {
		p := randomPatch(r)
		ok, want := checkPatch(p) == nil, roundTrips(p)
		if ok != want {
			t.Fatalf("trial %d: checkPatch passes=%v, round trip=%v, for %#v\n%s", trial, ok, want, p, Format(p))
		}
		if ok {
			accepted++
		}
	}
	if accepted < 800 {
		t.Errorf("only %d random patches were valid: the generator tests little", accepted)
	}
}
