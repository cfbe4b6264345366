package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"
)

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
