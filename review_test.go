package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
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

// TestReviewWithoutOrPanickingReviewer: R1. A review given no Reviewer, or one that
// panics on the goroutine the library runs it on, settles with an error the host sees
// instead of crashing its process, and writes nothing.
func TestReviewWithoutOrPanickingReviewer(t *testing.T) {
	for name, rv := range map[string]Reviewer{
		"nil":    nil,
		"panics": ReviewerFunc(func(context.Context, *Session) error { panic("boom") }),
	} {
		fsys := afero.NewMemMapFs()
		afero.WriteFile(fsys, "/ws/a.txt", []byte("a\n"), 0o644)
		pr, err := ResolvePayload(context.Background(), fsys, "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch", &Options{Workspace: "/ws"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Review(context.Background(), pr, rv)
		if err == nil || res == nil || res.Status != StatusError {
			t.Errorf("%s reviewer: result %+v, err %v; want an error result", name, res, err)
		}
		if data, _ := afero.ReadFile(fsys, "/ws/a.txt"); string(data) != "a\n" {
			t.Errorf("%s reviewer: a.txt is %q", name, data)
		}
	}
}
