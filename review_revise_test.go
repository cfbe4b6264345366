package applypatch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// twelve is a 12-line file with two changes far apart, so its hunks stay separate.
var twelve = struct {
	file, payload string
}{
	file: "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\n",
	payload: patch("*** Update File: one.txt",
		"@@", " one", "-two", "+TWO", " three",
		"@@", " ten", "-eleven", "+ELEVEN", " twelve"),
}

// revise opens a revision of a target and adopts edited.
func (f *fixture) revise(t Target, edited string, confirm func(prompt string) bool) error {
	f.t.Helper()
	rev, err := f.s.Revise(t)
	if err != nil {
		return err
	}
	return rev.Adopt(edited, confirm)
}

// R8, R9, S2: revising an Update's result re-derives its hunks, marks them edited,
// writes the edited text and reports the file as wholly revised (mevedel §7.3).
func TestReviseUpdate(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": "alpha\nbeta\ngamma\n"}, patch(
		"*** Update File: one.txt", "@@", "-beta", "+BETA"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	if rev.Baseline != "alpha\nbeta\ngamma\n" || rev.Proposed != "alpha\nBETA\ngamma\n" || rev.Path != "one.txt" {
		t.Fatalf("sides %q / %q", rev.Baseline, rev.Proposed)
	}
	f.must(rev.Adopt("alpha\nuser edited\ngamma\n", nil))
	f.must(f.s.Fold(Target{}, false))
	rows := f.s.View().Rows
	if rows[0].String() != "▼ ✓ M one.txt · 1/1 · +1 −1 · edited" || rows[1].String() != "    ✓ @@ alpha · +1 −1 · edited" {
		t.Errorf("rows %q", f.rowStrings())
	}
	if !slices.Contains(rows[1].Lines, DiffLine{Kind: LineAdd, Num: 2, New: 2, Text: "user edited"}) {
		t.Errorf("lines %v", rows[1].Lines)
	}
	res := f.submit()
	if got := f.read("one.txt"); got != "alpha\nuser edited\ngamma\n" {
		t.Errorf("file = %q", got)
	}
	text := res.Text()
	for _, want := range []string{
		"Applied patch: 1 change (1 revised by the user during review)",
		"User edited during review (authoritative): one.txt (whole file revised)",
		"-beta",
		"+user edited",
		"Applied: one.txt hunk 1",
	} {
		if !hasLine(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "do not revert") || res.Revised != 1 || !strings.Contains(res.Reminder, "one.txt (whole file revised)") {
		t.Errorf("result %+v", res)
	}
}

// R8: the revision's text that is already the proposed result stages nothing, and a
// cancelled revision stages nothing: the model's version applies.
func TestReviseUntouchedStagesNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": "a\nb\n"}, patch("*** Update File: one.txt", "-b", "+B"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	wantReason(t, rev.Adopt("a\r\nB\r\n", nil), reviewRevisionUnchanged) // line endings are no edit
	rev.Cancel()
	wantReason(t, rev.Adopt("a\nC\n", nil), reviewRevisionClosed)
	res := f.submit()
	if f.read("one.txt") != "a\nB\n" || res.Revised != 0 || res.Reminder != "" {
		t.Errorf("file %q, result %+v", f.read("one.txt"), res)
	}
}

// R8: a deselected hunk survives a revision of its file: still there, still deselected,
// not revised, after the derived hunk in baseline order, re-selectable on top of the
// edit (mevedel §3.5).
func TestRevisePreservesDeselectedHunk(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": twelve.file}, twelve.payload)
	f.must(f.s.Select(Target{1, 2}, false, nil))
	edited := strings.Replace(twelve.file, "two", "zwei", 1)
	f.must(f.revise(Target{File: 1}, edited, nil))
	f.must(f.s.Fold(Target{}, false))
	rows := f.s.View().Rows
	if len(rows) != 3 || !rows[1].Revised || rows[1].Glyph != "✓" || rows[2].Revised || rows[2].Glyph != "✗" {
		t.Fatalf("rows after revision: %q", f.rowStrings())
	}
	if rows[2].Lines[1] != (DiffLine{Kind: LineRemove, Num: 11, Old: 11, Text: "eleven"}) {
		t.Errorf("preserved hunk lines %v", rows[2].Lines)
	}
	f.must(f.s.Select(Target{1, 2}, true, nil))
	res := f.submit()
	want := strings.NewReplacer("two", "zwei", "eleven", "ELEVEN").Replace(twelve.file)
	if got := f.read("one.txt"); got != want {
		t.Errorf("file = %q, want %q", got, want)
	}
	if !hasLine(res.Text(), "User edited during review (authoritative): one.txt (whole file revised)") || res.Revised != 1 {
		t.Errorf("result:\n%s", res.Text())
	}
}

// R7, R8: feedback on a deselected hunk survives a revision of its file.
func TestReviseKeepsHunkFeedback(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": twelve.file}, twelve.payload)
	f.must(f.s.SetFeedback(Target{1, 2}, "leave eleven alone"))
	f.must(f.revise(Target{File: 1}, strings.Replace(twelve.file, "two", "deux", 1), nil))
	f.must(f.s.Fold(Target{}, false))
	if r := f.s.View().Rows[2]; r.Feedback != "leave eleven alone" || r.Glyph != "✗" {
		t.Errorf("preserved hunk %+v", r)
	}
	res := f.submit()
	if !hasLine(res.Text(), "Feedback: one.txt hunk 2: leave eleven alone") {
		t.Errorf("result:\n%s", res.Text())
	}
}

// R8, R9: revising an Add replaces its content, marks it edited and reports it as
// authoritative new content, with the reminder queued.
func TestReviseAdd(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: fresh.txt", "+model text"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	if rev.Baseline != "" || rev.Proposed != "model text\n" {
		t.Fatalf("sides %q %q", rev.Baseline, rev.Proposed)
	}
	f.must(rev.Adopt("user text\r\nline two", nil))
	if got := f.s.View().Rows[0].String(); got != "▶ ✓ A fresh.txt · +2 · edited" {
		t.Errorf("row %q", got)
	}
	res := f.submit()
	if got := f.read("fresh.txt"); got != "user text\nline two\n" {
		t.Errorf("file = %q", got)
	}
	if !hasLine(res.Text(), "User edited during review (authoritative): fresh.txt") ||
		!strings.HasPrefix(res.Text(), "Applied patch: 1 change (1 revised by the user during review)") ||
		!strings.Contains(res.Reminder, "fresh.txt (new file content)") {
		t.Errorf("result:\n%s\nreminder %q", res.Text(), res.Reminder)
	}
}

// R7, R8: adopting a revision of an Add with feedback asks first; declining keeps the
// feedback, the content and the deselection; confirming clears and selects.
func TestReviseAddWithFeedback(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: fresh.txt", "+model text"))
	f.must(f.s.SetFeedback(Target{File: 1}, "wrong greeting"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	wantReason(t, rev.Adopt("better text\n", func(string) bool { return false }), ReviewNeedsConfirm)
	if r := f.s.View().Rows[0]; r.Feedback == "" || r.Glyph != "✗" || r.Revised {
		t.Errorf("declined: %+v", r)
	}
	f.must(rev.Adopt("better text\n", DiscardFeedback))
	if r := f.s.View().Rows[0]; r.Feedback != "" || r.Glyph != "✓" || !r.Revised {
		t.Errorf("confirmed: %+v", r)
	}
}

// R8: emptying an Add is refused and the original content applies.
func TestReviseEmptyAddRefused(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: fresh.txt", "+model text"))
	err := f.revise(Target{File: 1}, " \n\n", nil)
	wantReason(t, err, reviewRevisionRefused)
	if !strings.Contains(err.Error(), "An added file needs content") {
		t.Errorf("err = %v", err)
	}
	f.s.revision.Cancel()
	f.submit()
	if f.read("fresh.txt") != "model text\n" {
		t.Errorf("file = %q", f.read("fresh.txt"))
	}
}

// R8: a revision that fails validation (the Add's path appeared meanwhile) is reported
// and rolled back: content and flags are untouched.
func TestReviseInvalidRolledBack(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: fresh.txt", "+model text"))
	f.write("fresh.txt", "someone else\n")
	err := f.revise(Target{File: 1}, "user text\n", nil)
	wantReason(t, err, reviewRevisionInvalid)
	if !errors.Is(err, &FileError{Reason: FileExists}) {
		t.Errorf("err = %v, want the path to exist", err)
	}
	c := f.pr.changes[0]
	if !slices.Equal(c.Op.Lines, []string{"model text"}) || c.Revised || !c.Selected {
		t.Errorf("change after rollback: %+v", c)
	}
	if f.s.View().State != StateOpen {
		t.Errorf("state %s", f.s.View().State)
	}
}

// R8: a Delete that keeps content becomes an Update; emptying or keeping everything is
// refused (mevedel §3.6).
func TestReviseDeleteBecomesUpdate(t *testing.T) {
	files := map[string]string{"old.txt": "keep\nobsolete\nkeep too\n"}
	f := newFixture(t, files, patch("*** Delete File: old.txt"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	if rev.Baseline != files["old.txt"] || rev.Proposed != "" {
		t.Fatalf("sides %q %q", rev.Baseline, rev.Proposed)
	}
	err = rev.Adopt("", nil)
	wantReason(t, err, reviewRevisionRefused)
	if !strings.Contains(err.Error(), "Empty content keeps nothing") {
		t.Errorf("empty: %v", err)
	}
	err = rev.Adopt(files["old.txt"], nil)
	wantReason(t, err, reviewRevisionRefused)
	if !strings.Contains(err.Error(), "keeps the file unchanged") {
		t.Errorf("everything kept: %v", err)
	}
	f.must(rev.Adopt("keep\nkeep too\n", nil))
	f.must(f.s.Fold(Target{}, false))
	rows := f.s.View().Rows
	if rows[0].String() != "▼ ✓ M old.txt · 1/1 · +0 −1 · edited" || !slices.Contains(rows[1].Lines, DiffLine{Kind: LineRemove, Num: 2, Old: 2, Text: "obsolete"}) {
		t.Errorf("rows %q %v", f.rowStrings(), rows[1].Lines)
	}
	res := f.submit()
	if got := f.read("old.txt"); got != "keep\nkeep too\n" {
		t.Errorf("file = %q", got)
	}
	if !hasLine(res.Text(), "User edited during review (authoritative): old.txt (whole file revised)") || res.Reminder == "" {
		t.Errorf("result:\n%s", res.Text())
	}
	if res.Files[0].Kind != "update" {
		t.Errorf("reported as %q", res.Files[0].Kind)
	}
}

// R8: nothing to edit for a deselected Add, Delete or Move, a pure rename or a fully
// deselected Update; one revision at a time.
func TestReviseRefusals(t *testing.T) {
	f := newFixture(t, map[string]string{"u.txt": "a\nb\n", "d.txt": "d\n", "m.txt": "m\n", "r.txt": "r\n"}, patch(
		"*** Update File: u.txt", "-b", "+B",
		"*** Delete File: d.txt",
		"*** Update File: m.txt", "*** Move to: m2.txt", "-m", "+M",
		"*** Update File: r.txt", "*** Move to: r2.txt",
		"*** Add File: a.txt", "+a"))
	f.must(f.s.Select(Target{}, false, nil))
	for file := 1; file <= 5; file++ {
		_, err := f.s.Revise(Target{File: file})
		wantReason(t, err, reviewNothingToEdit)
	}
	f.must(f.s.Select(Target{}, true, nil))
	_, err := f.s.Revise(Target{File: 4})
	if !strings.Contains(fmt.Sprint(err), "pure rename") {
		t.Errorf("pure rename: %v", err)
	}
	rev, err := f.s.Revise(Target{File: 3})
	f.must(err)
	_, err = f.s.Revise(Target{File: 1})
	wantReason(t, err, reviewRevisionOpen)
	rev.Cancel()
	_, err = f.s.Revise(Target{File: 1})
	f.must(err)
}

// R8, R10: a revision arriving after the review settled is discarded; the model's version
// is what was written.
func TestReviseAfterSettleDiscarded(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": "a\nb\n"}, patch("*** Update File: one.txt", "-b", "+B"))
	rev, err := f.s.Revise(Target{File: 1})
	f.must(err)
	f.submit()
	err = rev.Adopt("a\nlate\n", nil)
	wantReason(t, err, ReviewClosed)
	if !strings.Contains(err.Error(), "revision discarded: the review is no longer open") || f.read("one.txt") != "a\nB\n" {
		t.Errorf("err %v, file %q", err, f.read("one.txt"))
	}
}

// R8: a revision whose file's selection changed while it was open is discarded; the
// toggled hunk keeps its new state and nothing is marked revised.
func TestReviseSelectionChangedDiscarded(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": twelve.file}, twelve.payload)
	rev, err := f.s.Revise(Target{1, 1})
	f.must(err)
	if rev.Line != 1 || rev.Target != (Target{File: 1}) {
		t.Errorf("revision at line %d of %v", rev.Line, rev.Target)
	}
	f.must(f.s.Select(Target{1, 2}, false, nil)) // hunk 2 was selected
	err = rev.Adopt(strings.Replace(twelve.file, "two", "zwei", 1), nil)
	wantReason(t, err, ReviewRefused)
	if !strings.Contains(err.Error(), "revision discarded: this file's selection changed") {
		t.Errorf("err = %v", err)
	}
	for _, h := range f.pr.changes[0].Hunks {
		if h.Revised {
			t.Error("a hunk is marked revised")
		}
	}
	if f.s.View().Selected != 1 {
		t.Errorf("toggle lost: %+v", f.s.View())
	}
	if _, err := f.s.Revise(Target{File: 1}); err != nil {
		t.Errorf("the stale revision still blocks: %v", err)
	}
}

// R9: an unedited Delete applies and queues no reminder.
func TestUneditedDeleteQueuesNoReminder(t *testing.T) {
	f := newFixture(t, map[string]string{"d.txt": "x\n"}, patch("*** Delete File: d.txt"))
	res := f.submit()
	if res.Reminder != "" || res.Revised != 0 || f.read("d.txt") != "<absent>" {
		t.Errorf("result %+v", res)
	}
}

// R8: revising a Move re-derives its hunks; the Move stays indivisible and applies
// the revision at its destination.
func TestReviseMove(t *testing.T) {
	f := newFixture(t, map[string]string{"m.txt": "1\n2\n3\n"}, patch(
		"*** Update File: m.txt", "*** Move to: n.txt", "-2", "+two"))
	f.must(f.revise(Target{File: 1}, "1\n2\nthree\n", nil))
	res := f.submit()
	if f.read("n.txt") != "1\n2\nthree\n" || f.read("m.txt") != "<absent>" {
		t.Errorf("files %q %q", f.read("n.txt"), f.read("m.txt"))
	}
	if !hasLine(res.Text(), "User edited during review (authoritative): m.txt (whole file revised)") || !hasLine(res.Text(), "Applied: m.txt -> n.txt") {
		t.Errorf("result:\n%s", res.Text())
	}
}
