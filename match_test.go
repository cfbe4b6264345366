package applypatch

import (
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

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
