package applypatch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// R11: visiting a hunk opens its file at the hunk's baseline line
// (mevedel-patch-review-visit); an Add has nothing to visit.
func TestReviewVisit(t *testing.T) {
	f := newFixture(t, map[string]string{"v.txt": "one\ntwo\nold\nfour\n"}, patch(
		"*** Update File: v.txt", "@@ two", "-old", "+new",
		"*** Add File: fresh.txt", "+x"))
	loc, err := f.s.Visit(f.find("v.txt", 1))
	if err != nil || loc != (Location{Path: "v.txt", Name: "/ws/v.txt", Line: 3}) {
		t.Errorf("visit hunk = %+v, %v", loc, err)
	}
	_, err = f.s.Visit(f.find("fresh.txt", 0))
	wantReason(t, err, reviewNotVisitable)
	if !strings.Contains(err.Error(), "File is not created until the patch is applied") {
		t.Errorf("visit Add: %v", err)
	}
	f.must(f.fsys.Remove("/ws/v.txt"))
	_, err = f.s.Visit(f.find("v.txt", 0))
	wantReason(t, err, reviewNotVisitable)
}

// R1, R11, S5, F5: rows show the path as authored, and only Visit's Name carries the
// resolved path (mevedel-patch-review-local-visit).
func TestReviewVisitShowsAuthoredPath(t *testing.T) {
	f := newFixture(t, map[string]string{"src/a.txt": "x\ny\n"}, patch(
		"*** Update File: ./src/../src/a.txt", "-y", "+z"))
	if got := f.s.View().Rows[0].Path; got != "./src/../src/a.txt" {
		t.Errorf("row path = %q", got)
	}
	loc, err := f.s.Visit(Target{File: 1, Hunk: 1})
	if err != nil || loc.Path != "./src/../src/a.txt" || loc.Name != "/ws/src/a.txt" || loc.Line != 2 {
		t.Errorf("visit = %+v, %v", loc, err)
	}
	if strings.Contains(f.s.Render(), "/ws") || strings.Contains(f.submit().Text(), "/ws") {
		t.Error("the private resolved path shows in the review or the result")
	}
}

// R11: next and previous walk the visible rows (mevedel-patch-review-next-row).
func TestReviewNextRow(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.Fold(Target{File: 1}, false))
	want := []Target{{1, 0}, {1, 1}, {1, 2}, {2, 0}}
	var got []Target
	for at := (Target{}); ; {
		next, err := f.s.Next(at, false)
		if err != nil {
			wantReason(t, err, reviewNoRow)
			if !strings.Contains(err.Error(), "No next change") {
				t.Errorf("end: %v", err)
			}
			break
		}
		got, at = append(got, next), next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("next (-want +got):\n%s", diff)
	}
	back, err := f.s.Next(Target{File: 2}, true)
	if err != nil || back != (Target{1, 2}) {
		t.Errorf("prev from file 2 = %v, %v", back, err)
	}
	_, err = f.s.Next(Target{File: 1}, true)
	wantReason(t, err, reviewNoRow)
	f.must(f.s.Fold(Target{File: 1}, true))
	if next, _ := f.s.Next(Target{1, 1}, false); next != (Target{File: 2}) {
		t.Errorf("next from a hidden hunk = %v", next)
	}
}

// R1, R7: the targets are the whole patch, each operation and each changing hunk of an
// Update; locators and the hunks of a Move are not targets
// (mevedel-patch-review--feedback-targets).
func TestReviewFeedbackTargets(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "head\nx\ny\nz\n", "m.txt": "1\n2\n"}, patch(
		"*** Update File: a.txt", "@@", " head", "@@", "-y", "+Y",
		"*** Update File: m.txt", "*** Move to: n.txt", "@@", "-2", "+two",
		"*** Add File: new.txt", "+n"))
	for _, tc := range []struct {
		t  Target
		ok bool
	}{
		{Target{}, true}, {Target{File: 1}, true}, {Target{1, 1}, true}, {Target{1, 2}, false},
		{Target{File: 2}, true}, {Target{2, 1}, false}, {Target{File: 3}, true}, {Target{3, 1}, false},
		{Target{File: 4}, false}, {Target{File: -1}, false}, {Target{Hunk: 1}, false},
	} {
		err := f.s.SetFeedback(tc.t, "note")
		if (err == nil) != tc.ok {
			t.Errorf("feedback on %v: %v", tc.t, err)
		}
		if !tc.ok {
			wantReason(t, err, reviewUnknownTarget)
		}
	}
	if got := f.s.View(); got.Total != 3 || got.Comments != 5 {
		t.Errorf("tally with a locator: %+v", got)
	}
}

// R5, R6: the primary label's grammar, singular for exactly 1
// (mevedel-patch-review--primary-label).
func TestReviewPrimaryLabel(t *testing.T) {
	for _, tc := range []struct {
		t    View
		want string
	}{
		{View{}, "Reject patch"},
		{View{Selected: 1, FilesSelected: 1, Comments: 1}, "Apply 1 change in 1 file · send 1 comment"},
		{View{Comments: 1}, "Request revision · 1 comment"},
		{View{Comments: 4}, "Request revision · 4 comments"},
		{View{Selected: 6, FilesSelected: 4}, "Apply 6 changes in 4 files"},
		{View{Selected: 2, FilesSelected: 1, Comments: 3}, "Apply 2 changes in 1 file · send 3 comments"},
	} {
		if got := tc.t.action(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

// R5: the header's grammar: singular for exactly 1, U+2212 for the minus sign, comments
// only when staged.
func TestReviewHeader(t *testing.T) {
	for _, tc := range []struct {
		t    View
		want string
	}{
		{View{Files: 1, Selected: 1, Total: 1, Added: 1}, "ApplyPatch · 1 file · 1/1 change · +1 −0"},
		{View{Files: 1, Total: 1}, "ApplyPatch · 1 file · 0/1 change · +0 −0"},
		{View{Files: 5, Selected: 6, Total: 9, Added: 69, Removed: 26, Comments: 1}, "ApplyPatch · 5 files · 6/9 changes · +69 −26 · 1 comment"},
		{View{Files: 2, Selected: 3, Total: 3, Added: 3, Removed: 3, Comments: 2}, "ApplyPatch · 2 files · 3/3 changes · +3 −3 · 2 comments"},
	} {
		if got := tc.t.header(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
		if strings.Contains(tc.t.header(), "-") {
			t.Errorf("header uses an ASCII minus: %q", tc.t.header())
		}
	}
}

// R7: staged feedback is rendered under its target, continuation lines indented
// (mevedel-patch-review--feedback-body).
func TestReviewFeedbackBody(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.Fold(Target{}, false))
	f.must(f.s.SetFeedback(f.find("one.txt", 2), "first line\nsecond line"))
	f.must(f.s.SetFeedback(f.find("one.txt", 0), "about the file"))
	f.must(f.s.SetFeedback(Target{}, "about it all"))
	got := f.s.Render()
	for _, want := range []string{
		"      ✎ first line\n        second line\n",
		"    ✗ @@ zeta · +1 −1 ✎\n",
		"  ✎ about the file\n▼ ✓ M two.txt",
		"ApplyPatch · 2 files · 2/3 changes · +2 −2 · 3 comments\n  ✎ about it all\n",
		"[ Apply 2 changes in 2 files · send 3 comments ]   [ Reject all ]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
}

// R1, R3, R4: the body: an Add's header and numbered lines, line kinds for tinting, a
// deselected hunk dimmed with ✗ (mevedel-patch-review--body).
func TestReviewBody(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: fresh.txt", "+hello", "+world"))
	if got := f.s.View().Header; got != "ApplyPatch · 1 file · 1/1 change · +2 −0" {
		t.Errorf("header = %q", got)
	}
	f.must(f.s.Fold(Target{}, false))
	r := f.s.View().Rows[0]
	want := []DiffLine{{Kind: LineAdd, Num: 1, New: 1, Text: "hello"}, {Kind: LineAdd, Num: 2, New: 2, Text: "world"}}
	if diff := cmp.Diff(want, r.Lines); diff != "" || r.String() != "▼ ✓ A fresh.txt · +2" {
		t.Errorf("add row %q (-want +got):\n%s", r, diff)
	}
	if got := r.Lines[0].String(); got != "       1 + │ hello" {
		t.Errorf("line layout = %q", got)
	}

	g := newFixture(t, twoFiles.files, twoFiles.payload)
	g.must(g.s.Fold(Target{}, false))
	g.must(g.s.Select(g.find("one.txt", 1), false, nil))
	h := g.s.View().Rows[1]
	if !h.Dimmed || h.String() != "    ✗ @@ alpha · +1 −1" {
		t.Errorf("deselected hunk row %q dimmed=%t", h, h.Dimmed)
	}
	kinds := []LineKind{}
	for _, l := range g.s.View().Rows[2].Lines {
		kinds = append(kinds, l.Kind)
	}
	if !slices.Equal(kinds, []LineKind{LineRemove, LineAdd}) {
		t.Errorf("line kinds = %q", kinds)
	}
	if got := g.s.View().Rows[0].String(); got != "▼ ◐ M one.txt · 1/2 · +1 −1" {
		t.Errorf("partial file row = %q", got)
	}
}

// R8, R9: a settled review refuses requests, and rows mark revised changes.
func TestReviewSettledRefuses(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.submit()
	for name, err := range map[string]error{
		"select":   f.s.Select(Target{}, true, DiscardFeedback),
		"feedback": f.s.SetFeedback(Target{}, "late"),
		"fold":     f.s.Fold(Target{}, false),
		"reject":   f.s.Reject(),
	} {
		if !errors.Is(err, &ReviewError{Reason: ReviewClosed}) {
			t.Errorf("%s after settling: %v", name, err)
		}
	}
	_, err := f.s.Revise(Target{File: 1})
	wantReason(t, err, reviewSettled)
	if got := f.s.Render(); got != "ApplyPatch: 2 files · 3 changes (+3 -3)" {
		t.Errorf("settled render = %q", got)
	}
}

// TestSessionFeedbackReadsBack: feedback staged on the whole patch, an operation and a
// hunk reads back from the view (R7): the whole patch's from View.Feedback, the others'
// from their rows, so a front end holds none of its own. An unknown target is refused
// when feedback is staged (TestReviewFeedbackTargets); the view has no row for it.
func TestSessionFeedbackReadsBack(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	hunk, err := f.s.Find("one.txt", 1)
	f.must(err)
	file := Target{File: hunk.File}
	f.must(f.s.SetFeedback(Target{}, "whole"))
	f.must(f.s.SetFeedback(file, "file"))
	f.must(f.s.SetFeedback(hunk, "hunk\nsecond line"))
	f.must(f.s.Fold(file, false))
	v := f.s.View()
	got := map[Target]string{Target{}: v.Feedback}
	for _, r := range v.Rows {
		got[r.Target] = r.Feedback
	}
	want := map[Target]string{Target{}: "whole", file: "file", hunk: "hunk\nsecond line", {1, 2}: "", {File: 2}: ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("feedback by target (-want +got):\n%s", diff)
	}
}

// TestReviewFirstLook: R4. A review opens on the diff: a short one whole, and one longer
// than 80 lines with each file's first hunk unfolded and its other hunks a row each.
func TestReviewFirstLook(t *testing.T) {
	var file, first, second strings.Builder
	for i := range 200 {
		fmt.Fprintf(&file, "line %d\n", i)
	}
	for i := range 30 {
		fmt.Fprintf(&first, "-line %d\n+LINE %d\n", i, i)
		fmt.Fprintf(&second, "-line %d\n+LINE %d\n", 100+i, 100+i)
	}
	payload := "*** Begin Patch\n*** Update File: big.txt\n@@\n" + first.String() + "@@\n" + second.String() +
		"*** Update File: small.txt\n@@\n-a\n+A\n*** End Patch"
	f := newFixture(t, map[string]string{"big.txt": file.String(), "small.txt": "a\nb\n"}, payload)
	folded := map[Target]bool{}
	for _, r := range NewSession(f.pr).View().Rows {
		folded[r.Target] = r.Folded
	}
	want := map[Target]bool{{File: 1}: false, {File: 1, Hunk: 1}: false, {File: 1, Hunk: 2}: true,
		{File: 2}: false, {File: 2, Hunk: 1}: false}
	if diff := cmp.Diff(want, folded); diff != "" {
		t.Errorf("fold state of a long review (-want +got):\n%s", diff)
	}
}
