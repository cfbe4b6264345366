package applypatch

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// missFields names, for each fact of a match.Miss, the MatchError field it is copied to.
var missFields = map[string]string{
	"Reason": "why", "Anchor": "Anchor", "Outer": "Outer", "Hint": "Hint",
	"Lines": "Lines", "More": "More", "MoreCapped": "moreCapped", "AnchorLine": "AnchorLine",
	"HunkLines": "HunkLines", "HunkMore": "hunkMore", "HunkCapped": "hunkCapped",
	"FileLines": "FileLines", "Pass": "pass", "AppliedAt": "appliedAt", "Near": "near",
	"Occurs": "occurs", "InsertAt": "insertAt", "Unexplained": "unexplained", "BlockEnd": "blockEnd",
}

// TestMissMapsToMatchError: the matcher's facts cross into the public error one to one.
// Every reason of the matcher has an exported reason, every exported reason but an
// overlap (which the matcher does not find) stands behind one, and every fact of a Miss
// is copied to its own MatchError field, so a fact added to the matcher cannot be lost
// on the way.
func TestMissMapsToMatchError(t *testing.T) {
	reached := map[MatchReason]bool{}
	for r := match.NotFound; r <= match.BlankContext; r++ {
		c, ok := coarse[r]
		if !ok {
			t.Errorf("match.Reason %d has no exported reason", r)
		}
		reached[c] = true
	}
	for r := MatchNotFound; r <= MatchAmbiguous; r++ {
		if !reached[r] {
			t.Errorf("%v stands behind no reason of the matcher", r)
		}
	}
	m := &match.Miss{Reason: match.AnchorAmbiguous, Anchor: "a", Outer: "o", Hint: 1, Lines: []int{2}, More: 3,
		MoreCapped: true, AnchorLine: 4, HunkLines: []int{5}, HunkMore: 6, HunkCapped: true, FileLines: 7,
		Pass: match.Punctuation, AppliedAt: 8, Near: &match.NearMiss{Start: 9}, Occurs: true, InsertAt: 10,
		Unexplained: true, BlockEnd: 11}
	e := reflect.ValueOf(matchError(m)).Elem()
	mv := reflect.ValueOf(m).Elem()
	for i := range mv.NumField() {
		name := mv.Type().Field(i).Name
		to, ok := missFields[name]
		if !ok {
			t.Errorf("Miss.%s is copied to no MatchError field", name)
			continue
		}
		if mv.Field(i).IsZero() {
			t.Errorf("Miss.%s is zero in the test's miss", name)
		}
		if got, want := fmt.Sprintf("%#v", e.FieldByName(to)), fmt.Sprintf("%#v", mv.Field(i)); got != want {
			t.Errorf("MatchError.%s = %s, want Miss.%s = %s", to, got, name, want)
		}
	}
	if got := matchError(m).Reason; got != MatchAmbiguous {
		t.Errorf("Reason = %v, want MatchAmbiguous", got)
	}
	for _, k := range []LineKind{LineContext, LineRemove, LineAdd} {
		if want := map[LineKind]match.Kind{LineContext: match.Context, LineRemove: match.Remove, LineAdd: match.Add}[k]; match.Kind(k) != want {
			t.Errorf("LineKind %q is match.Kind %q, want %q", k, match.Kind(k), want)
		}
	}
}

// TestAnchorAmbiguityText: M9. The words of the refusal the matcher's
// TestAnchorAmbiguityBounded bounds: a few of the thousands of lines the anchor names and
// a few of the hunk's own places, with how many more there are.
func TestAnchorAmbiguityText(t *testing.T) {
	for _, tc := range []struct{ name, unit, lines, places string }{
		{"in no section", "key:\nkey: v\nx\n", "names 5,000 lines (1, 4, 7, 10, 13 and 4,995 more)", "(at lines 3, 6, 9, 12, 15 and 4,995 more)"},
		{"in several sections", "key:\nx\n", "names 5,000 lines (1, 3, 5, 7, 9 and 4,995 more)", "(at lines 2, 4, 6, 8, 10 and 4,995 more)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Hunk{Anchor: "key:", Lines: []Line{{LineRemove, "x"}, {LineAdd, "y"}}}
			pl := newPlacer(lines.Split(strings.Repeat(tc.unit, 5000)), []Hunk{h})
			_, miss := pl.Place(h.view())
			if miss == nil || miss.Reason != match.AnchorAmbiguous {
				t.Fatalf("miss %+v, want AnchorAmbiguous", miss)
			}
			err := matchError(miss)
			for _, want := range []string{tc.lines, tc.places} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error text lacks %q:\n%s", want, err.Error())
				}
			}
		})
	}
}
