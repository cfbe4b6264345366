package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// C1, S5: the card shows the selected diff with adopted edits and authored paths, the
// native action label and a separate notice (mevedel-patch-review-start/remote).
func TestCardShowsSelectedDiff(t *testing.T) {
	g := newFixture(t, map[string]string{"one.txt": twelve.file, "sub/two.txt": "x\n"}, patch(
		"*** Update File: one.txt",
		"@@", " one", "-two", "+TWO", " three",
		"@@", " ten", "-eleven", "+ELEVEN", " twelve",
		"*** Update File: ./sub/two.txt", "-x", "+new line"))
	g.must(g.s.Select(Target{1, 2}, false, nil))
	g.must(g.revise(Target{File: 2}, "user line\n", nil))
	card := g.s.Card(CardOptions{})
	for _, want := range []string{"*** Update File: ./sub/two.txt", "+user line", "+TWO"} {
		if !hasLine(card.Diff, want) {
			t.Errorf("card diff lacks %q:\n%s", want, card.Diff)
		}
	}
	if strings.Contains(card.Diff, "ELEVEN") || strings.Contains(card.Diff, "new line") || strings.Contains(card.Diff, "/ws") {
		t.Errorf("card diff shows a deselected or replaced change, or a private path:\n%s", card.Diff)
	}
	if card.Action != g.s.View().Action || card.Action != "Apply 2 changes in 2 files" || !card.Feedback {
		t.Errorf("action %q feedback %t", card.Action, card.Feedback)
	}
	want := "A read-only preview of the selected changes; the person reviewing the patch chooses and edits them.\nRejected: one.txt hunk 2"
	if card.Notice != want {
		t.Errorf("notice = %q, want %q", card.Notice, want)
	}
	g.must(g.s.SetFeedback(Target{}, "why?"))
	notice := g.s.Card(CardOptions{ParentActive: true}).Notice
	lines := strings.Split(notice, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[1], "Warning: the parent request is still active") || lines[2] != "Feedback (whole patch): why?" {
		t.Errorf("notice order:\n%s", notice)
	}
}

// C2: diff and notice keep to their byte budgets, cut at a character boundary with a
// last line pointing to the native review, the marker counted inside the budget.
func TestCardBudgets(t *testing.T) {
	content := strings.Repeat("héllo wörld ✓\n", 400)
	f := newFixture(t, nil, patch("*** Add File: big.txt", "+"+strings.ReplaceAll(strings.TrimSuffix(content, "\n"), "\n", "\n+")))
	f.must(f.s.SetFeedback(Target{}, strings.Repeat("ü", 3000)))
	f.must(f.s.Select(Target{}, true, DiscardFeedback))
	for _, budgets := range []CardOptions{{DiffBytes: 1000, NoticeBytes: 300}, {DiffBytes: 1001, NoticeBytes: 301}, {DiffBytes: 1002, NoticeBytes: 302}} {
		card := f.s.Card(budgets)
		for _, tc := range []struct {
			text   string
			budget int
			marker string
		}{{card.Diff, budgets.DiffBytes, cardDiffMarker}, {card.Notice, budgets.NoticeBytes, cardNoticeMarker}} {
			if len(tc.text) > tc.budget || !utf8.ValidString(tc.text) || !strings.HasSuffix(tc.text, "\n"+tc.marker) {
				t.Errorf("budget %d: %d bytes, valid %t, ends %q", tc.budget, len(tc.text), utf8.ValidString(tc.text), tc.text[max(0, len(tc.text)-60):])
			}
			if len(tc.text) < tc.budget-utf8.UTFMax {
				t.Errorf("budget %d: cut to %d bytes, more than a character short", tc.budget, len(tc.text))
			}
		}
	}
	if card := f.s.Card(CardOptions{}); len(card.Diff) > defaultCardDiffBytes || strings.Contains(card.Diff, "[truncated") {
		t.Errorf("default budget: %d bytes", len(card.Diff))
	}
	mine := CardOptions{DiffBytes: 500, NoticeBytes: 200, DiffMarker: "[cut: see the tool]", NoticeMarker: "[cut notes]"}
	if card := f.s.Card(mine); !strings.HasSuffix(card.Diff, "\n[cut: see the tool]") || !strings.HasSuffix(card.Notice, "\n[cut notes]") {
		t.Errorf("host markers not used: diff ends %q, notice ends %q", card.Diff[len(card.Diff)-30:], card.Notice[len(card.Notice)-20:])
	}
	if got := cutBytes("abcdef", 3, "[truncated]"); got != "[tr" {
		t.Errorf("budget below the marker: %q", got)
	}
}

// C3: a conflict's details stay native; the card tells the reader to inspect it there.
func TestCardConflictStaysNative(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.write("two.txt", "changed\n")
	if _, err := f.s.Submit(context.Background()); !errors.Is(err, &ConflictError{}) {
		t.Fatal(err)
	}
	notice := f.s.Card(CardOptions{}).Notice
	if !strings.Contains(notice, "Inspect the conflict in the full review, or request a revision") || strings.Contains(notice, "two.txt") {
		t.Errorf("notice:\n%s", notice)
	}

	base := afero.NewMemMapFs()
	renames := 0
	ffs := faultfs.New(base, faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
		if op == faultfs.OpRename {
			renames++
			return renames > 1
		}
		return false
	}))
	g := newFixtureOn(t, ffs, twoFiles.files, twoFiles.payload, &Options{})
	if _, err := g.s.Submit(context.Background()); !errors.As(err, new(*IncompleteRollbackError)) {
		t.Fatalf("submit: %v", err)
	}
	notice = g.s.Card(CardOptions{}).Notice
	if !strings.Contains(notice, "could not restore every file") || strings.Contains(notice, "one.txt") {
		t.Errorf("notice:\n%s", notice)
	}
}

// C4: the card's hash changes with its content only: folding never republishes it.
func TestCardHashIgnoresFolding(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	h := f.s.Card(CardOptions{}).Hash
	f.must(f.s.Fold(Target{}, false))
	f.must(f.s.Fold(Target{1, 1}, true))
	if got := f.s.Card(CardOptions{}).Hash; got != h {
		t.Error("folding changed the card's hash")
	}
	f.must(f.s.Select(Target{1, 1}, false, nil))
	h2 := f.s.Card(CardOptions{}).Hash
	if h2 == h {
		t.Error("deselecting a hunk kept the card's hash")
	}
	f.must(f.s.Select(Target{1, 1}, true, nil))
	if got := f.s.Card(CardOptions{}).Hash; got != h {
		t.Error("the same content has another hash")
	}
	if got := f.s.Card(CardOptions{ParentActive: true}).Hash; got == h {
		t.Error("a new warning kept the card's hash")
	}
}

// C5, R10, S4: feedback from the card deselects every change, keeps feedback staged on
// hunks, and submits a revision request; later answers are refused
// (mevedel-patch-review-start/remote).
func TestCardFeedback(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.SetFeedback(Target{1, 2}, "hunk note"))
	_, err := f.s.CardFeedback(context.Background(), "  ")
	wantReason(t, err, reviewEmptyFeedback)
	res, err := f.s.CardFeedback(context.Background(), "Please split this patch")
	if err != nil || res.Status != StatusRevision {
		t.Fatalf("card feedback: %v %s", err, res.Text())
	}
	if res.Text() != strings.Join([]string{
		"Patch revision requested",
		"Feedback (whole patch): Please split this patch",
		"Rejected: one.txt hunk 1",
		"Rejected: one.txt hunk 2",
		"Feedback: one.txt hunk 2: hunk note",
		"Rejected: two.txt hunk 1",
	}, "\n") {
		t.Errorf("result:\n%s", res.Text())
	}
	if f.read("one.txt") != twoFiles.files["one.txt"] {
		t.Error("card feedback wrote a file")
	}
	if _, err := f.s.CardFeedback(context.Background(), "again"); !errors.Is(err, &ReviewError{Reason: ReviewClosed}) {
		t.Errorf("second answer: %v", err)
	}
	card := f.s.Card(CardOptions{})
	if card.Action != "" || card.Feedback || !strings.HasPrefix(card.Notice, "This review has settled: ApplyPatch: revision requested") {
		t.Errorf("settled card %+v", card)
	}
}

// C1, M4: after a fuzzy match the card shows the context and '-' lines as the file has
// them, as the review's diff does, not the model's copy; its '+' lines are the model's.
func TestCardShowsFileLinesOfFuzzyHunk(t *testing.T) {
	g := newFixture(t, map[string]string{"f.go": "func f() {   \n\treturn 1  \n}\n"}, patch(
		"*** Update File: f.go",
		"@@", " func f() {", "-\treturn 1", "+\treturn 2", " }"))
	card := g.s.Card(CardOptions{})
	for _, want := range []string{" func f() {   ", "-\treturn 1  ", "+\treturn 2"} {
		if !hasLine(card.Diff, want) {
			t.Errorf("card diff lacks %q:\n%s", want, card.Diff)
		}
	}
	if hasLine(card.Diff, " func f() {") || hasLine(card.Diff, "-\treturn 1") {
		t.Errorf("card diff shows the model's copy of a fuzzy-matched line:\n%s", card.Diff)
	}
}
