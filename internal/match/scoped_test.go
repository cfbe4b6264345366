package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	textlines "github.com/applypatch/applypatch/internal/lines"
)

// naiveChoose is the anchor and tie-break rule of M6, M3 and M7 written out over the full
// list of candidates: below the anchor, inside a block, else a section; then at or after
// the cursor; then nearest the hint. It is the oracle of TestChooseAgreesWithNaive.
func naiveChoose(sc scope, all []int, cursor, hint int) (int, Reason) {
	cands, t := sc.narrow(all)
	if !sc.unique() && t == tierBelow {
		return -1, AnchorAmbiguous
	}
	if after := slices.DeleteFunc(slices.Clone(cands), func(c int) bool { return c < cursor }); len(cands) > 1 && len(after) > 0 {
		cands = after
	}
	if len(cands) > 1 && hint > 0 {
		best := slices.MinFunc(cands, func(a, b int) int { return abs(a-(hint-1)) - abs(b-(hint-1)) })
		cands = slices.DeleteFunc(cands, func(c int) bool { return abs(c-(hint-1)) != abs(best-(hint-1)) })
	}
	switch {
	case len(cands) == 1:
		return cands[0], 0
	case len(sc.owners(cands, t)) > 1:
		return -1, AnchorAmbiguous
	}
	return -1, Ambiguous
}

// TestChooseAgreesWithNaive: M3, M6, M7, PERF4. The tie-breaks asked of the lazy match
// set through an anchor's scope (binary searches over ranges) decide every hunk as the
// rule written out over every candidate does: the same start, or the same refusal.
func TestChooseAgreesWithNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 9))
	words := []string{"class A:", "    def f():", "        x", "    x", "x", "", "def f():", "    y"}
	anchors := []string{"class A:", "    def f():", "def f():", "    "}
	checked := 0
	for range 4000 {
		lines := make([]string, 2+r.IntN(40))
		for i := range lines {
			lines[i] = words[r.IntN(len(words))]
		}
		old := []string{words[2+r.IntN(3)]}
		if r.IntN(2) == 0 {
			old = append(old, words[r.IntN(len(words))])
		}
		a := anchors[r.IntN(len(anchors))]
		h := testHunk{Anchor: a, Lines: linesOf(old)}
		if r.IntN(3) == 0 {
			h.Hint = 1 + r.IntN(len(lines))
		}
		text := textlines.Split(strings.Join(lines, "\n") + "\n")
		pl := New(text, []Hunk{&h})
		pl.cursor = r.IntN(len(lines))
		sc, err := pl.anchors(&h)
		if err != nil {
			continue
		}
		all := pl.idx.find(old, Exact, -1)
		if c, _ := sc.narrow(all); len(c) == 0 {
			continue
		}
		want, wantReason := naiveChoose(sc, all, pl.cursor, h.Hint)
		got, gerr := pl.choose(sc, pl.idx.matchSetOf(old, Exact, -1), &h, Exact)
		gotReason := Reason(0)
		if gerr != nil {
			gotReason = gerr.Reason
		}
		if got != want || gotReason != wantReason {
			t.Fatalf("file %q anchor %q hunk %q cursor %d hint %d: got %d %v, want %d %v",
				lines, a, old, pl.cursor, h.Hint, got, gotReason, want, wantReason)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d cases reached the tie-breaks", checked)
	}
}

// TestAnchoredHintWork: PERF4, M6, M7. Hunks anchored by a line that heads hundreds of
// blocks of identical lines, each settled by its line hint, verify a handful of starts
// each: the block tier and the hint are asked by binary search, not by listing the
// thousands of starts below the anchor.
func TestAnchoredHintWork(t *testing.T) {
	const blocks, size = 400, 100
	var b strings.Builder
	for range blocks {
		b.WriteString("func f() {\n" + strings.Repeat("\t}\n", size-1))
	}
	text := textlines.Split(b.String())
	var hunks []testHunk
	for k := 1; k < blocks; k += 2 {
		hunks = append(hunks, testHunk{Anchor: "func f() {", Hint: k*size + 3,
			Lines: []testLine{{Context, "\t}"}, {Remove, "\t}"}, {Add, "X"}}})
	}
	pl := New(text, hunksOf(hunks))
	for i := range hunks {
		got, err := pl.Place(&hunks[i])
		if err != nil {
			t.Fatalf("hunk %d: %+v", i+1, err)
		}
		if want := hunks[i].Hint - 1; got.Start != want {
			t.Fatalf("hunk %d placed at line %d, want %d (the hinted line)", i+1, got.Start+1, want+1)
		}
	}
	if per := pl.idx.verified / len(hunks); per > 16 {
		t.Errorf("%d starts verified per hunk, want a handful", per)
	}
}

// TestAnchorAmbiguityBounded: PERF4, M6, M9. A hunk that the thousands of lines its
// anchor names cannot settle is refused naming a few of them and a few of its own
// places, with how many more there are: whether it lies in no section of theirs, or in
// the sections of several. The library's TestAnchorAmbiguityText checks the words.
func TestAnchorAmbiguityBounded(t *testing.T) {
	for _, tc := range []struct{ name, unit, lines, places string }{
		{"in no section", "key:\nkey: v\nx\n", "[1 4 7 10 13] and 4995 more", "[3 6 9 12 15] and 4995 more"},
		{"in several sections", "key:\nx\n", "[1 3 5 7 9] and 4995 more", "[2 4 6 8 10] and 4995 more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := testHunk{Anchor: "key:", Lines: []testLine{{Remove, "x"}, {Add, "y"}}}
			pl := New(textlines.Split(strings.Repeat(tc.unit, 5000)), []Hunk{&h})
			_, err := pl.Place(&h)
			if err == nil || err.Reason != AnchorAmbiguous {
				t.Fatalf("miss %+v, want AnchorAmbiguous", err)
			}
			if len(err.Lines) != Listed || len(err.HunkLines) != Listed {
				t.Errorf("Candidates %v, HunkLines %v: want %d of each", err.Lines, err.HunkLines, Listed)
			}
			lines := fmt.Sprintf("%v and %d more", err.Lines, err.More)
			places := fmt.Sprintf("%v and %d more", err.HunkLines, err.HunkMore)
			if lines != tc.lines || places != tc.places || err.MoreCapped || err.HunkCapped {
				t.Errorf("the anchor names %s (capped %v), the hunk lies at %s (capped %v); want %s, %s",
					lines, err.MoreCapped, places, err.HunkCapped, tc.lines, tc.places)
			}
			if per := pl.idx.verified; per > 3*countBudget {
				t.Errorf("%d starts verified for one hunk", per)
			}
		})
	}
}
