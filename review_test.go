package applypatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// twoFiles is a patch of 2 files and 3 hunks, each +1 −1.
var twoFiles = struct {
	files   map[string]string
	payload string
}{
	files: map[string]string{
		"one.txt": "alpha\nold one\nbeta\ngamma\ndelta\nepsilon\nzeta\nold two\neta\n",
		"two.txt": "first\nold three\nlast\n",
	},
	payload: patch(
		"*** Update File: one.txt",
		"@@ alpha",
		"-old one",
		"+new one",
		"@@ zeta",
		"-old two",
		"+new two",
		"*** Update File: two.txt",
		"@@ first",
		"-old three",
		"+new three",
	),
}

// R1, R3, R4, R5, X1: the review opens on the diff, writes nothing, tallies the
// selection, and submits only what is selected (mevedel-patch-review-start).
func TestReviewStart(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	opened := []string{
		"▼ ✓ M one.txt · 2/2 · +2 −2",
		"    ✓ @@ alpha · +1 −1",
		"    ✓ @@ zeta · +1 −1",
		"▼ ✓ M two.txt · 1/1 · +1 −1",
		"    ✓ @@ first · +1 −1",
	}
	if diff := cmp.Diff(opened, rowStrings(NewSession(f.pr).View().Rows)); diff != "" {
		t.Errorf("rows of a new review (-want +got):\n%s", diff)
	}
	if got, want := f.s.View().Header, "ApplyPatch · 2 files · 3/3 changes · +3 −3"; got != want {
		t.Errorf("header = %q, want %q", got, want)
	}
	if got := f.read("one.txt"); got != twoFiles.files["one.txt"] {
		t.Fatalf("one.txt changed before submission: %q", got)
	}
	rows := f.s.View().Rows
	if len(rows) != 2 || !rows[0].Folded || rows[0].Lines != nil || rows[1].isHunk() {
		t.Fatalf("rows at start = %v, want two folded file rows", f.rowStrings())
	}
	f.must(f.s.Fold(f.find("one.txt", 0), false))
	want := []string{
		"▼ ✓ M one.txt · 2/2 · +2 −2",
		"    ✓ @@ alpha · +1 −1",
		"    ✓ @@ zeta · +1 −1",
		"▶ ✓ M two.txt · 1/1 · +1 −1",
	}
	if diff := cmp.Diff(want, f.rowStrings()); diff != "" {
		t.Errorf("expanded rows (-want +got):\n%s", diff)
	}
	if got := f.s.View().Rows[1].Lines; len(got) != 2 || got[0] != (DiffLine{Kind: LineRemove, Num: 2, Old: 2, Text: "old one"}) {
		t.Errorf("hunk 1 lines = %v", got)
	}
	f.must(f.s.Fold(f.find("one.txt", 1), true))
	if r := f.s.View().Rows[1]; r.Lines != nil || !strings.HasSuffix(r.String(), " …") {
		t.Errorf("folded hunk row = %q with %d lines", r.String(), len(r.Lines))
	}
	f.must(f.s.Select(f.find("one.txt", 1), false, nil))
	if got, want := f.s.View().Header, "ApplyPatch · 2 files · 2/3 changes · +2 −2"; got != want {
		t.Errorf("header after deselect = %q, want %q", got, want)
	}
	res := f.submit()
	if got, want := f.read("one.txt"), "alpha\nold one\nbeta\ngamma\ndelta\nepsilon\nzeta\nnew two\neta\n"; got != want {
		t.Errorf("one.txt = %q, want %q", got, want)
	}
	if got := f.read("two.txt"); got != "first\nnew three\nlast\n" {
		t.Errorf("two.txt = %q", got)
	}
	if !hasLine(res.Text(), "Rejected: one.txt hunk 1") || !hasLine(res.Text(), "Applied: one.txt hunk 2") {
		t.Errorf("result:\n%s", res.Text())
	}
	if !res.Reviewed {
		t.Error("a review settlement is not marked Reviewed")
	}
}

// R7, S2, S4: feedback is multi-line; on a hunk it deselects, on a file or the patch it
// keeps selection; feedback alone is a revision request that writes nothing
// (mevedel-patch-review-feedback).
func TestReviewFeedback(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.SetFeedback(f.find("one.txt", 1), "Keep the old wording\nit is referenced elsewhere"))
	if got := f.s.View().Selected; got != 2 {
		t.Errorf("hunk feedback left %d selected, want 2", got)
	}
	f.must(f.s.SetFeedback(f.find("one.txt", 0), "Split this file"))
	f.must(f.s.SetFeedback(Target{}, "Explain the renames"))
	if got := f.s.View().Selected; got != 2 {
		t.Errorf("file and patch feedback changed selection: %d selected, want 2", got)
	}
	f.must(f.s.SetFeedback(f.find("one.txt", 2), "Not this one either"))
	f.must(f.s.Select(f.find("two.txt", 0), false, nil))
	if got, want := f.s.View().Action, "Request revision · 4 comments"; got != want {
		t.Errorf("label = %q, want %q", got, want)
	}
	res := f.submit()
	if res.Status != StatusRevision || f.read("one.txt") != twoFiles.files["one.txt"] || f.read("two.txt") != twoFiles.files["two.txt"] {
		t.Fatalf("status %s; files one=%q two=%q", res.Status, f.read("one.txt"), f.read("two.txt"))
	}
	want := []string{
		"Patch revision requested",
		"Feedback (whole patch): Explain the renames",
		"Rejected: one.txt hunk 1",
		"Feedback: one.txt hunk 1: Keep the old wording",
		"  it is referenced elsewhere",
		"Rejected: one.txt hunk 2",
		"Feedback: one.txt hunk 2: Not this one either",
		"Feedback: one.txt: Split this file",
		"Rejected: two.txt hunk 1",
	}
	if diff := cmp.Diff(want, strings.Split(res.Text(), "\n")); diff != "" {
		t.Errorf("result text (-want +got):\n%s", diff)
	}
	if res.Comments != 4 || len(res.Notes) != 7 {
		t.Errorf("comments %d, notes %q", res.Comments, res.Notes)
	}
}

// R7: blank feedback clears; cleared feedback leaves selection as it is; a target
// with feedback is re-selected only when the confirm callback says yes.
func TestReviewFeedbackConfirm(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.Fold(f.find("one.txt", 0), false)) // the hunk rows are what a person toggles
	h1 := f.find("one.txt", 1)
	f.must(f.s.SetFeedback(h1, " \n\t")) // blank: nothing to clear, nothing staged
	if f.s.View().Comments != 0 {
		t.Errorf("blank feedback staged: %+v", f.s.View())
	}
	f.must(f.s.SetFeedback(h1, "no"))
	err := f.s.Select(h1, true, nil)
	wantReason(t, err, ReviewNeedsConfirm)
	var re *ReviewError
	if !errors.As(err, &re) || re.Prompt != "Reselect and clear its feedback?" {
		t.Errorf("prompt = %+v", re)
	}
	asked := ""
	wantReason(t, f.toggle(h1, func(p string) bool { asked = p; return false }), ReviewNeedsConfirm)
	if asked == "" || f.s.View().Rows[0].Selected != 1 {
		t.Errorf("declined toggle: asked %q, %d selected", asked, f.s.View().Rows[0].Selected)
	}
	f.must(f.toggle(f.find("one.txt", 0), nil)) // deselect the file: hunk 2 too
	err = f.toggle(f.find("one.txt", 0), nil)
	if !errors.As(err, &re) || re.Prompt != "Reselect file and clear its feedback?" {
		t.Fatalf("file reselect: %v", err)
	}
	f.must(f.toggle(f.find("one.txt", 0), DiscardFeedback))
	if r := f.s.View().Rows[0]; r.Glyph != "✓" || f.s.View().Comments != 0 {
		t.Errorf("after confirmed reselect: %q, %d comments", r, f.s.View().Comments)
	}
	f.must(f.s.SetFeedback(f.find("two.txt", 0), "file note"))
	f.must(f.s.SetFeedback(f.find("two.txt", 0), ""))
	if f.s.View().Comments != 0 || f.s.View().Selected != 3 {
		t.Errorf("cleared feedback: %+v", f.s.View())
	}
}

// threeKinds has an Update with two hunks, a Delete and a Move with a hunk.
var threeKinds = struct {
	files   map[string]string
	payload string
}{
	files: map[string]string{
		"update.txt": "a\nb\nc\nd\ne\nf\ng\nh\n",
		"delete.txt": "gone\n",
		"move.txt":   "m1\nm2\n",
	},
	payload: patch(
		"*** Update File: update.txt",
		"@@ a",
		"-b",
		"+B",
		"@@ f",
		"-g",
		"+G",
		"*** Delete File: delete.txt",
		"*** Update File: move.txt",
		"*** Move to: moved.txt",
		"@@",
		" m1",
		"-m2",
		"+M2",
	),
}

// R4: Add, Delete and Move are indivisible; an Update's file row toggles every hunk
// (mevedel-patch-review-toggle-selection).
func TestReviewToggleSelection(t *testing.T) {
	f := newFixture(t, threeKinds.files, threeKinds.payload)
	f.must(f.s.Fold(Target{}, false))
	rows := f.s.View().Rows
	move := rows[len(rows)-1]
	if move.String() != "▼ ✓ R move.txt → moved.txt · +1 −1" || len(move.Lines) != 3 {
		t.Fatalf("move row %q with lines %v", move, move.Lines)
	}
	for _, l := range move.Lines {
		if l.Heading {
			t.Errorf("a Move hunk without anchor shows a heading: %v", l)
		}
	}
	if _, err := f.s.Find("move.txt", 1); !errors.Is(err, &ReviewError{Reason: reviewUnknownTarget}) {
		t.Errorf("a Move's hunk is selectable: %v", err)
	}
	up := f.find("update.txt", 0)
	f.must(f.toggle(up, nil))
	rows = f.s.View().Rows
	if rows[0].String() != "▼ ✗ M update.txt · 0/2" || rows[1].Glyph != "✗" || rows[2].Glyph != "✗" {
		t.Errorf("after toggling the file row: %v", f.rowStrings())
	}
	f.must(f.toggle(up, nil))
	if got := f.s.View().Rows[0].String(); got != "▼ ✓ M update.txt · 2/2 · +2 −2" {
		t.Errorf("second toggle: %q", got)
	}
	f.must(f.s.Select(f.find("update.txt", 1), false, nil))
	f.must(f.toggle(up, nil)) // partly selected: the file row deselects the rest
	if got := f.s.View().Rows[0].String(); got != "▼ ✗ M update.txt · 0/2" {
		t.Errorf("toggling a partly selected file: %q", got)
	}
	del := f.find("delete.txt", 0)
	f.must(f.toggle(del, nil))
	if r := f.s.View().Rows[3]; r.Target != del || r.Glyph != "✗" {
		t.Errorf("toggled Delete: %q", r)
	}
	f.must(f.toggle(Target{}, nil)) // something (the Move) is selected: all is deselected
	if v := f.s.View(); v.Selected != 0 || v.Action != "Reject patch" {
		t.Errorf("toggling the patch with a change selected: %d/%d selected", v.Selected, v.Total)
	}
	f.must(f.toggle(Target{}, nil)) // nothing selected: all is selected
	if v := f.s.View(); v.Selected != v.Total || v.Total != 4 {
		t.Errorf("toggling the patch with nothing selected: %d/%d selected", v.Selected, v.Total)
	}
	f.must(f.s.Select(f.find("delete.txt", 0), false, nil))
	res := f.submit()
	if f.read("delete.txt") != "gone\n" || !hasLine(res.Text(), "Rejected: delete.txt") {
		t.Errorf("deselected Delete: file %q, result:\n%s", f.read("delete.txt"), res.Text())
	}
	if f.read("moved.txt") != "m1\nM2\n" || f.read("move.txt") != "<absent>" {
		t.Errorf("move: %q %q", f.read("moved.txt"), f.read("move.txt"))
	}
}

// R6: with everything deselected the primary action rejects the patch.
func TestReviewDeselectAll(t *testing.T) {
	f := newFixture(t, threeKinds.files, threeKinds.payload)
	f.must(f.s.Select(Target{}, false, nil))
	for _, r := range f.s.View().Rows {
		if r.Glyph != "✗" || !r.Dimmed {
			t.Errorf("row still selected: %q", r)
		}
	}
	if got := f.s.View().Action; got != "Reject patch" {
		t.Errorf("label = %q", got)
	}
	f.must(f.s.Select(Target{}, true, nil))
	if got := f.s.View(); got.Selected != got.Total {
		t.Errorf("select all: %+v", got)
	}
}

// R10, X7: a file changed on disk after the review began writes nothing, keeps the
// review open with the conflict, and deselecting it lets the rest apply
// (mevedel-patch-review-submit).
func TestReviewSubmit(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.write("two.txt", "first\nold three\nlast\nmore\n")
	res, err := f.s.Submit(context.Background())
	if !errors.Is(err, &ConflictError{}) || res.Status != StatusError {
		t.Fatalf("Submit over a stale file: %v", err)
	}
	if f.read("one.txt") != twoFiles.files["one.txt"] {
		t.Errorf("one.txt written despite the conflict")
	}
	if f.s.View().State != StateOpen || !errors.Is(f.s.View().Conflict, &ConflictError{}) {
		t.Fatalf("state %s, conflict %v", f.s.View().State, f.s.View().Conflict)
	}
	if r, _ := f.s.outcome(); r != nil {
		t.Fatal("a conflict settled the review")
	}
	if !strings.Contains(f.s.Render(), "Conflict: file changed during review: two.txt") {
		t.Errorf("render:\n%s", f.s.Render())
	}
	f.must(f.s.Select(f.find("two.txt", 0), false, nil))
	res = f.submit()
	if res.Applied != 2 || f.read("one.txt") == twoFiles.files["one.txt"] || f.s.View().State != StateSettled {
		t.Errorf("after deselecting the stale file: %s", res.Text())
	}
	if _, err := f.s.Submit(context.Background()); !errors.Is(err, &ReviewError{Reason: ReviewClosed}) {
		t.Errorf("second submit: %v", err)
	}
}

// R10, S4: rejecting everything settles with an error result and writes nothing
// (mevedel-patch-review-reject).
func TestReviewReject(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.SetFeedback(Target{}, "dropped by reject"))
	f.must(f.s.Reject())
	res, err := f.s.outcome()
	if !errors.Is(err, ErrRejected) || res.Text() != "Error: Patch rejected" || res.Status != StatusError || !res.Reviewed {
		t.Fatalf("reject: %v %+v", err, res)
	}
	if f.read("one.txt") != twoFiles.files["one.txt"] {
		t.Error("reject wrote one.txt")
	}
	wantReason(t, f.s.Reject(), reviewSettled)
	wantReason(t, f.toggle(f.find("one.txt", 0), nil), reviewSettled)
}

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
