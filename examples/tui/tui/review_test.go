package tui

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
)

// R1, R4, R5, R6, R10: expanding the file shows its hunk rows; deselecting one changes the
// glyphs, the header and the primary label; submitting applies the rest.
func TestDeselectHunkAndSubmit(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.showing(
		"ApplyPatch · 1 file · 2/2 changes · +2 −2",
		"› ▶ ✓ M greet.go · 2/2 · +2 −2",
		"[ Apply 2 changes in 1 file ]   [ Reject all ]",
	)
	f.press("tab", "n", "n", "space")
	f.showing(
		"ApplyPatch · 1 file · 1/2 changes · +1 −1",
		"  ▼ ◐ M greet.go · 1/2 · +1 −1",
		"      ✓ @@ func hello · +1 −1",
		"         4 - │     return \"hello\"",
		"         4 + │     return \"hello, world\"",
		"›     ✗ @@ func bye · +1 −1",
		"         8 - │     return \"bye\"",
		"[ Apply 1 change in 1 file ]   [ Reject all ]",
	)
	f.press("ctrl+c", "ctrl+c")
	if f.finish() {
		t.Fatal("the review goes on after a successful submission")
	}
	res, err := f.result()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Applied patch: 1 change\nApplied: greet.go hunk 1\nRejected: greet.go hunk 2"; res.Text() != want {
		t.Errorf("result text:\n%s\nwant:\n%s", res.Text(), want)
	}
	if got, want := f.read("greet.go"), strings.Replace(greetFile, `"hello"`, `"hello, world"`, 1); got != want {
		t.Errorf("greet.go:\n%s\nwant:\n%s", got, want)
	}
}

// R7, S2: feedback on a hunk deselects it, shows ✎ and counts in the header and the
// label; submitting applies the rest and reports the rejected hunk with its feedback.
func TestFeedbackOnHunkThenSubmit(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("tab", "n", "n", "f")
	f.showing("✎ Feedback on greet.go @@ func bye:", "C-s or C-c C-c stage")
	f.typeText("Keep \"bye\":\ncallers match on it.")
	f.press("ctrl+s")
	f.showing(
		"ApplyPatch · 1 file · 1/2 changes · +1 −1 · 1 comment",
		"›     ✗ @@ func bye · +1 −1 ✎",
		"      ✎ Keep \"bye\":",
		"        callers match on it.",
		"[ Apply 1 change in 1 file · send 1 comment ]",
	)
	f.press("ctrl+c", "ctrl+c")
	f.finish()
	res, err := f.result()
	if err != nil {
		t.Fatal(err)
	}
	want := "Applied patch: 1 change\nApplied: greet.go hunk 1\nRejected: greet.go hunk 2\n" +
		"Feedback: greet.go hunk 2: Keep \"bye\":\n  callers match on it."
	if res.Text() != want {
		t.Errorf("result text:\n%s\nwant:\n%s", res.Text(), want)
	}
}

// R6, S4: feedback on every hunk leaves nothing selected; the label asks for a revision
// and submitting writes nothing.
func TestFeedbackOnlyRequestsRevision(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("tab", "n", "f")
	f.typeText("Say hello to the world elsewhere.")
	f.press("ctrl+c", "ctrl+c") // C-c C-c in the input stages the feedback
	f.press("n", "f")
	f.typeText("Keep bye.")
	f.press("ctrl+s")
	f.showing("ApplyPatch · 1 file · 0/2 changes · +0 −0 · 2 comments", "[ Request revision · 2 comments ]   [ Reject all ]")
	f.press("ctrl+c", "ctrl+c")
	f.finish()
	res, err := f.result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != applypatch.StatusRevision || !strings.HasPrefix(res.Text(), "Patch revision requested\n") {
		t.Errorf("result %s:\n%s", res.Status, res.Text())
	}
	if f.read("greet.go") != greetFile {
		t.Error("a revision request wrote greet.go")
	}
}

// R4: SPC on an Update's file row deselects all its hunks when any is selected, a partly
// selected file included, and selects them all when none is.
func TestSpaceOnFileRow(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("tab", "n", "space", "p")
	f.showing("› ▼ ◐ M greet.go · 1/2 · +1 −1")
	f.press("space")
	f.showing("ApplyPatch · 1 file · 0/2 changes · +0 −0", "› ▼ ✗ M greet.go · 0/2",
		"      ✗ @@ func hello", "      ✗ @@ func bye", "[ Reject patch ]")
	f.press("space")
	f.showing("ApplyPatch · 1 file · 2/2 changes · +2 −2", "› ▼ ✓ M greet.go · 2/2 · +2 −2",
		"      ✓ @@ func hello", "      ✓ @@ func bye", "[ Apply 2 changes in 1 file ]")
}

// R7: re-selecting a hunk that carries feedback asks first; no keeps it, yes clears it.
func TestReselectAsksBeforeClearingFeedback(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("tab", "n", "f")
	f.typeText("No.")
	f.press("ctrl+s", "space")
	f.showing("Reselect and clear its feedback? (y/n)")
	f.press("n")
	f.notShowing("(y/n)")
	f.showing("›     ✗ @@ func hello · +1 −1 ✎", "      ✎ No.")
	f.press("space", "y")
	f.showing("ApplyPatch · 1 file · 2/2 changes · +2 −2", "›     ✓ @@ func hello · +1 −1")
	f.notShowing("✎")
}

// R7: whole-patch feedback (F) shows under the header and leaves selection alone; an
// empty input removes it again.
func TestPatchFeedback(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("F")
	f.showing("✎ Feedback on the whole patch:")
	f.typeText("Also add a test.")
	f.press("ctrl+s")
	f.showing("ApplyPatch · 1 file · 2/2 changes · +2 −2 · 1 comment", "  ✎ Also add a test.", "› ▶ ✓ M greet.go",
		"[ Apply 2 changes in 1 file · send 1 comment ]")
	f.press("F")
	f.showing("✎ Feedback on the whole patch:", "│ Also add a test.")
	for range len("Also add a test.") {
		f.press("backspace")
	}
	f.press("ctrl+s")
	f.showing("Feedback removed", "[ Apply 2 changes in 1 file ]")
	f.notShowing("comment", "✎ Also")
}

// R7: an empty note is refused and the input stays open; Esc leaves everything as it was.
func TestEmptyFeedbackRefused(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("f", "ctrl+s")
	f.showing("feedback cannot be empty", "✎ Feedback on greet.go:")
	f.press("esc")
	f.showing("Feedback not changed", "[ Apply 2 changes in 1 file ]")
	f.notShowing("✎")
}

// R10, S4: C-c C-k rejects the whole patch; nothing is written.
func TestRejectAll(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("ctrl+c", "ctrl+k")
	f.finish()
	res, err := f.result()
	if !errors.Is(err, applypatch.ErrRejected) || res.Text() != "Error: Patch rejected" {
		t.Errorf("result %q, %v; want Error: Patch rejected", res.Text(), err)
	}
	if f.read("greet.go") != greetFile {
		t.Error("reject wrote greet.go")
	}
}

// R10: q asks, then aborts the review.
func TestQuitAborts(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.press("q")
	f.showing("Quit and abort the review? Nothing is applied. (y/n)")
	f.press("n")
	if f.quit {
		t.Fatal("n quit the program")
	}
	f.press("q", "y")
	f.finish()
	if res, err := f.result(); !errors.Is(err, applypatch.ErrAborted) || res.Text() != "Error: Patch review aborted" {
		t.Errorf("result %q, %v; want an aborted review", res.Text(), err)
	}
}

// R4: TAB folds and unfolds files and hunks independently of selection.
func TestFoldUnfold(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	f.notShowing("@@ func hello")
	f.press("tab")
	f.showing("› ▼ ✓ M greet.go", "      ✓ @@ func hello · +1 −1", "         4 - │", "      ✓ @@ func bye · +1 −1", "         8 - │")
	f.press("n", "tab")
	f.showing("›     ✓ @@ func hello · +1 −1 …", "      ✓ @@ func bye · +1 −1", "         8 - │")
	f.notShowing("4 - │")
	f.press("tab")
	f.showing("›     ✓ @@ func hello · +1 −1", "         4 - │")
	f.press("p", "tab")
	f.showing("› ▶ ✓ M greet.go · 2/2 · +2 −2", "[ Apply 2 changes in 1 file ]")
	f.notShowing("@@ func")
	f.press("shift+tab")
	f.showing("› ▼ ✓ M greet.go", "@@ func hello", "@@ func bye")
	f.press("shift+tab")
	f.notShowing("@@ func")
}

// R11: n and p move between rows and say so at the ends; RET shows the authored path and
// the baseline line, and refuses an Add.
func TestNavigateAndVisit(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile},
		patch("*** Add File: docs/new.md\n+# New", strings.TrimSuffix(strings.TrimPrefix(greetPayload, "*** Begin Patch\n"), "\n*** End Patch\n")))
	f.press("p")
	f.showing("No previous change")
	f.press("enter")
	f.showing("File is not created until the patch is applied")
	f.press("n", "tab", "n", "n", "enter")
	f.showing("›     ✓ @@ func bye", "greet.go:8")
	f.press("n")
	f.showing("›     ✓ @@ func bye", "No next change")
}

// R8, R9: e hands the proposed result to $EDITOR, adopts what it leaves, marks the change
// edited, and the result tells the model the user's version is authoritative.
func TestEditWithEditorAndAdopt(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	edited := strings.NewReplacer(`"hello"`, `"hello, world"`, `"bye"`, `"see you"`).Replace(greetFile)
	var saw string
	f.m.editor, saw = useFakeEditor(t, edited)
	f.press("tab", "e")
	proposed, err := os.ReadFile(saw)
	if err != nil {
		t.Fatalf("the editor did not run: %v", err)
	}
	if want := strings.NewReplacer(`"hello"`, `"hello, world"`, `"bye"`, `"goodbye"`).Replace(greetFile); string(proposed) != want {
		t.Errorf("the editor was given:\n%s\nwant the proposed result:\n%s", proposed, want)
	}
	f.showing("ApplyPatch · 1 file · 1/1 change · +2 −2", "› ▼ ✓ M greet.go · 1/1 · +2 −2 · edited",
		"      ✓ @@ package greet · +2 −2 · edited", "         8 + │     return \"see you\"", "Adopted your edit of greet.go")
	f.press("ctrl+c", "ctrl+c")
	f.finish()
	res, err := f.result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text(), "Applied patch: 1 change (1 revised by the user during review)\nUser edited during review (authoritative): greet.go (whole file revised)") {
		t.Errorf("result text:\n%s", res.Text())
	}
	if f.read("greet.go") != edited {
		t.Errorf("greet.go:\n%s\nwant the edited text:\n%s", f.read("greet.go"), edited)
	}
}

// R8: an editor that leaves the proposed result as it was adopts nothing and says so
// quietly; the change stays as proposed.
func TestEditLeftUnchanged(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile}, greetPayload)
	proposed := strings.NewReplacer(`"hello"`, `"hello, world"`, `"bye"`, `"goodbye"`).Replace(greetFile)
	f.m.editor, _ = useFakeEditor(t, proposed)
	f.press("tab", "e")
	f.showing("› ▼ ✓ M greet.go · 2/2 · +2 −2", "No change to adopt; the patch stays as proposed")
	f.notShowing("· edited")
}

// R8: adopting a revision of an Add that carries feedback asks first; a refused revision
// is reported in the status line and the review stays as it was.
func TestEditAddAsksAndRefusals(t *testing.T) {
	f := newFixture(t, nil, patch("*** Add File: notes.md\n+# Notes"))
	f.press("f")
	f.typeText("Say more.")
	f.press("ctrl+s")
	f.showing("› ▶ ✗ A notes.md · +1 ✎", "[ Request revision · 1 comment ]")

	f.m.editor, _ = useFakeEditor(t, "")
	f.press("e")
	f.showing("› ▶ ✗ A notes.md · +1 ✎", "edit not adopted: revision refused: An added file needs content")

	f.m.editor, _ = useFakeEditor(t, "# Notes\n\nMore.\n")
	f.press("e")
	f.showing("Adopt the revision and clear its feedback? (y/n)")
	f.press("n")
	f.showing("› ▶ ✗ A notes.md · +1 ✎", "Edit not adopted")
	f.press("e", "y")
	f.showing("› ▶ ✓ A notes.md · +3 · edited", "Adopted your edit of notes.md", "[ Apply 1 change in 1 file ]")
	f.notShowing("✎")
}

// X7: a file changed behind the review's back makes the submission fail; the review
// comes back with the conflict and its recovery hint and stays usable: deselecting the
// stale file applies the rest.
func TestConflictKeepsReviewUsable(t *testing.T) {
	f := newFixture(t, map[string]string{"greet.go": greetFile, "b.txt": "b\n"},
		patch("*** Update File: b.txt\n@@\n-b\n+B", strings.TrimSuffix(strings.TrimPrefix(greetPayload, "*** Begin Patch\n"), "\n*** End Patch\n")))
	f.write("greet.go", greetFile+"// changed meanwhile\n")
	f.press("ctrl+c", "ctrl+c")
	if !f.finish() {
		t.Fatal("the review ended after a conflict")
	}
	f.showing("Conflict: file changed during review: greet.go", "Deselect the stale file with SPC to apply the rest, or C-c C-k to reject",
		"Nothing was applied.")
	f.notShowing("C-c-")
	f.press("n", "space", "ctrl+c", "ctrl+c")
	if f.finish() {
		t.Fatalf("the review goes on after the stale file was deselected:\n%s", f.screen())
	}
	res, err := f.result()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Applied patch: 1 change\nApplied: b.txt hunk 1\nRejected: greet.go hunk 1\nRejected: greet.go hunk 2"; res.Text() != want {
		t.Errorf("result text:\n%s\nwant:\n%s", res.Text(), want)
	}
	if f.read("b.txt") != "B\n" || f.read("greet.go") != greetFile+"// changed meanwhile\n" {
		t.Errorf("files: b.txt %q, greet.go %q", f.read("b.txt"), f.read("greet.go"))
	}
}

// A long review scrolls so that the cursor's row stays on screen.
func TestScrollFollowsCursor(t *testing.T) {
	var file, sections strings.Builder
	for i := range 30 {
		file.WriteString("line " + string(rune('A'+i%26)) + strings.Repeat("x", i) + "\n")
	}
	content := file.String()
	for i := range 10 {
		l := "line " + string(rune('A'+i*3%26)) + strings.Repeat("x", i*3)
		sections.WriteString("@@\n-" + l + "\n+" + strings.ToUpper(l) + "\n")
	}
	f := newFixture(t, map[string]string{"long.txt": content}, patch("*** Update File: long.txt\n"+strings.TrimSuffix(sections.String(), "\n")))
	f.resize(80, 16)
	f.press("tab")
	for i := range 10 {
		f.press("n")
		if !strings.Contains(f.screen(), "›     ✓ @@ ") {
			t.Fatalf("after %d moves the cursor's row is off screen:\n%s", i+1, f.screen())
		}
	}
	if strings.Contains(f.screen(), "▼ ✓ M long.txt") {
		t.Errorf("the list did not scroll:\n%s", f.screen())
	}
	if n := strings.Count(f.screen(), "\n") + 1; n != 16 {
		t.Errorf("the screen has %d lines, want the terminal's 16", n)
	}
}

// R4: the terminal reviewer opens on the diff, as every front end does: the file expanded
// and its hunks' lines shown, with no key pressed.
func TestOpensOnTheDiff(t *testing.T) {
	f := newFixtureAs(t, map[string]string{"greet.go": greetFile}, greetPayload, false)
	f.showing(
		"› ▼ ✓ M greet.go · 2/2 · +2 −2",
		"      ✓ @@ func hello · +1 −1",
		"         4 - │     return \"hello\"",
		"      ✓ @@ func bye · +1 −1",
		"         8 + │     return \"goodbye\"",
	)
}
