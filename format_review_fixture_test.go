package applypatch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/afero"
)

// The saved-review fixtures (issue 21): a review saved by Session.Save, once with the
// baselines' bytes and once by hash, and the workspace and payload it belongs to.
const (
	reviewFixture       = "review_v1.txtar"
	reviewSaved         = "review_v1.json"
	reviewSavedByHash   = "review_v1_by_hash.json"
	reviewFixturePatch  = "patch.txt"
	reviewWorkspaceRoot = "/ws"
)

// reviewFixtureBaseline is the workspace the saved review was resolved over.
var reviewFixtureBaseline = map[string]fixtureFile{
	"greet.md":  {"# Greetings\n\n## Hello\nSay hello.\n\n## Bye\nSay bye.\n", 0o644},
	"old.txt":   {"obsolete\n", 0o600},
	"lib/a.txt": {"x\nkeep\n", 0o640},
}

// reviewFixturePayload updates greet.md in two hunks, adds notes.md, deletes old.txt and
// moves lib/a.txt with an edit.
const reviewFixturePayload = `*** Begin Patch
*** Update File: greet.md
@@ ## Hello
-Say hello.
+Say hello, world.
@@ ## Bye
-Say bye.
+Say goodbye.
*** Add File: notes.md
+# Notes
*** Delete File: old.txt
*** Update File: lib/a.txt
*** Move to: lib/b.txt
@@
-x
+y
 keep
*** End Patch
`

// The review state the fixture was saved with.
const (
	reviewHunkFeedback  = "Keep \"bye\": the tests match on it."
	reviewPatchFeedback = "Touch greet.md's Hello section only."
	reviewRevisedNotes  = "# Notes\n\nRevised in review.\n"
)

// stageFixtureReview puts the saved state on a fresh review of the fixture: greet.md
// expanded with its second hunk folded, deselected and carrying feedback; notes.md
// revised; the Delete of old.txt deselected without feedback; feedback on the whole
// patch; the Move left as proposed.
func stageFixtureReview(t *testing.T, s *applypatch.Session) {
	t.Helper()
	steps := []func() error{
		func() error { return s.SetFeedback(applypatch.Target{File: 1, Hunk: 2}, reviewHunkFeedback) },
		func() error {
			rev, err := s.Revise(applypatch.Target{File: 2})
			if err != nil {
				return err
			}
			return rev.Adopt(reviewRevisedNotes, nil)
		},
		func() error { return s.Select(applypatch.Target{File: 3}, false, nil) },
		func() error { return s.SetFeedback(applypatch.Target{}, reviewPatchFeedback) },
		func() error { return s.Fold(applypatch.Target{File: 1}, false) },
		func() error { return s.Fold(applypatch.Target{File: 1, Hunk: 2}, true) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("staging step %d: %v", i+1, err)
		}
	}
}

// TestWriteReviewFixture rewrites the saved-review fixtures with this build: it resolves
// reviewFixturePayload over reviewFixtureBaseline in memory, stages the review state and
// saves it with the baselines' bytes and by hash, exactly as Session.Save returns them.
func TestWriteReviewFixture(t *testing.T) {
	skipUnlessWriting(t)
	fsys := afero.NewMemMapFs()
	writeFixture(t, fsys, reviewWorkspaceRoot, reviewFixtureBaseline)
	pr := mustResolve(t, fsys, reviewFixturePayload, &applypatch.Options{Workspace: reviewWorkspaceRoot})
	s := applypatch.NewSession(pr)
	stageFixtureReview(t, s)
	for name, opts := range map[string]applypatch.SaveOptions{
		reviewSaved:       {},
		reviewSavedByHash: {BaselinesByHash: true},
	} {
		data, err := s.Save(opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(formatsDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", name)
	}
	ws := afero.NewMemMapFs()
	writeFixture(t, ws, "/", reviewFixtureBaseline)
	if err := afero.WriteFile(ws, "/"+reviewFixturePatch, []byte(reviewFixturePayload), 0o644); err != nil {
		t.Fatal(err)
	}
	comment := fmt.Sprintf(`The workspace and payload of the saved reviews %s and %s
(saved review version 1, issue 21), read by TestSavedReviewFromEarlierBuildRestores.
Written by TestWriteReviewFixture (%s=1 go test -run TestWriteReviewFixture .),
which resolves %s over the other files with Options.Workspace %q and saves the
review with Session.Save exactly as it returns it: by content (SaveOptions{}) and by hash
(SaveOptions{BaselinesByHash: true}). Do not regenerate them to make that test pass: a
later build must restore what this one saved.

The review state saved:
	greet.md expanded; its hunk 2 folded, deselected, with the feedback %q
	notes.md revised to %q
	the Delete of old.txt deselected, without feedback
	the whole patch with the feedback %q
	the Move of lib/a.txt to lib/b.txt as proposed
`, reviewSaved, reviewSavedByHash, writeFixturesEnv, reviewFixturePatch, reviewWorkspaceRoot,
		reviewHunkFeedback, reviewRevisedNotes, reviewPatchFeedback)
	writeArchive(t, filepath.Join(formatsDir, reviewFixture), comment, ws, "/")
}

// loadReviewFixture makes the fixture's workspace in memory and returns it with the
// payload and the two saved reviews.
func loadReviewFixture(t *testing.T) (fsys afero.Fs, payload string, saved, byHash []byte) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(formatsDir, reviewFixture))
	if err != nil {
		t.Fatal(err)
	}
	fsys = afero.NewMemMapFs()
	loadArchive(t, ar, fsys, reviewWorkspaceRoot)
	p, err := afero.ReadFile(fsys, filepath.Join(reviewWorkspaceRoot, reviewFixturePatch))
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.Remove(filepath.Join(reviewWorkspaceRoot, reviewFixturePatch)); err != nil {
		t.Fatal(err)
	}
	if saved, err = os.ReadFile(filepath.Join(formatsDir, reviewSaved)); err != nil {
		t.Fatal(err)
	}
	if byHash, err = os.ReadFile(filepath.Join(formatsDir, reviewSavedByHash)); err != nil {
		t.Fatal(err)
	}
	return fsys, string(p), saved, byHash
}

// TestSavedReviewFromEarlierBuildRestores restores the reviews an earlier build saved,
// with the baselines' bytes and by hash, over the workspace they were saved from: each
// comes back with the selection, feedback, revision and fold state it was saved with,
// and the one by content commits exactly what was staged. A copy with one byte changed,
// in a baseline's hash or in a line of a hunk, is refused as the documentation says: a
// *ReviewError of reason ReviewUnrestorable, or for a hash saved in place of the bytes a
// *ConflictError naming the path, since its baseline then reads as gone.
func TestSavedReviewFromEarlierBuildRestores(t *testing.T) {
	ctx := context.Background()
	fsys, payload, saved, byHash := loadReviewFixture(t)
	if payload != reviewFixturePayload {
		t.Errorf("the fixture's payload is not reviewFixturePayload:\n%s", cmp.Diff(reviewFixturePayload, payload))
	}
	if bytes.Contains(byHash, []byte(`"bytes"`)) || !bytes.Contains(saved, []byte(`"bytes"`)) {
		t.Fatalf("%s should hold the baselines' bytes and %s only their hashes", reviewSaved, reviewSavedByHash)
	}
	opts := &applypatch.Options{Workspace: reviewWorkspaceRoot}

	restored := map[string]*applypatch.Session{}
	for name, data := range map[string][]byte{reviewSaved: saved, reviewSavedByHash: byHash} {
		s, err := applypatch.RestoreSession(ctx, fsys, data, opts)
		if err != nil {
			t.Fatalf("%s: restore: %v", name, err)
		}
		checkRestoredReview(t, name, s)
		restored[name] = s
	}
	if a, b := restored[reviewSaved].Render(), restored[reviewSavedByHash].Render(); a != b {
		t.Errorf("the two saved forms restore to different reviews:\n%s", cmp.Diff(a, b))
	}

	// Each tamper changes one byte of the saved changes (the last occurrence of the
	// text: the changes follow the saved patch), which restoring checks against the
	// baselines they carry or, by hash, against the workspace.
	for _, tc := range []struct {
		name, in, old, new string
		want               error
	}{
		{"a baseline's hash", reviewSaved, `"hash":"`, `"hash":"`, &applypatch.ReviewError{Reason: applypatch.ReviewUnrestorable}},
		{"a removed line of a hunk", reviewSaved, `"-Say bye."`, `"-Say bye!"`, &applypatch.ReviewError{Reason: applypatch.ReviewUnrestorable}},
		{"a context line of a hunk", reviewSaved, `" keep"`, `" keeP"`, &applypatch.ReviewError{Reason: applypatch.ReviewUnrestorable}},
		{"a baseline's hash", reviewSavedByHash, `"hash":"`, `"hash":"`, &applypatch.ConflictError{Reason: applypatch.ConflictChanged}},
	} {
		data := map[string][]byte{reviewSaved: saved, reviewSavedByHash: byHash}[tc.in]
		_, err := applypatch.RestoreSession(ctx, fsys, changeOneByte(t, data, tc.old, tc.new), opts)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s with %s changed: restore = %v, want %T %v", tc.in, tc.name, err, tc.want, tc.want)
		}
		var ce *applypatch.ConflictError
		if errors.As(tc.want, &ce) && (!errors.As(err, &ce) || !slices.Equal(ce.Paths, []string{"lib/a.txt"})) {
			t.Errorf("%s with %s changed: %v, want a conflict naming lib/a.txt, whose hash it is", tc.in, tc.name, err)
		}
	}

	// The restored review commits what was staged: greet.md's first hunk, the revised
	// notes.md and the Move; old.txt stays, and the feedback reaches the result.
	res, err := restored[reviewSaved].Submit(ctx)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if res.Status != applypatch.StatusApplied || !strings.Contains(res.Text(), reviewHunkFeedback) ||
		!strings.Contains(res.Text(), reviewPatchFeedback) {
		t.Errorf("the result:\n%s", res.Text())
	}
	want := map[string]fixtureFile{
		"greet.md":  {"# Greetings\n\n## Hello\nSay hello, world.\n\n## Bye\nSay bye.\n", 0o644},
		"notes.md":  {reviewRevisedNotes, 0o644},
		"old.txt":   reviewFixtureBaseline["old.txt"],
		"lib/b.txt": {"y\nkeep\n", 0o640},
	}
	got := readTree(t, fsys, reviewWorkspaceRoot)
	if diff := cmp.Diff(baselineTree(want), got, cmp.AllowUnexported(treeEntry{})); diff != "" {
		t.Errorf("the restored review committed (-want +got):\n%s", diff)
	}
}

// checkRestoredReview asserts the state the fixture's review was saved with.
func checkRestoredReview(t *testing.T, label string, s *applypatch.Session) {
	t.Helper()
	v := s.View()
	if v.State != applypatch.StateOpen || v.Files != 4 || v.Selected != 3 || v.Total != 5 ||
		v.Comments != 2 || v.Feedback != reviewPatchFeedback {
		t.Errorf("%s: view: state %s, files %d, %d/%d selected, %d comments, feedback %q",
			label, v.State, v.Files, v.Selected, v.Total, v.Comments, v.Feedback)
	}
	type row struct {
		Target          applypatch.Target
		Selected, Total int
		Folded, Revised bool
		Feedback        string
	}
	var got []row
	for _, r := range v.Rows {
		got = append(got, row{r.Target, r.Selected, r.Total, r.Folded, r.Revised, r.Feedback})
	}
	want := []row{
		{Target: applypatch.Target{File: 1}, Selected: 1, Total: 2},
		{Target: applypatch.Target{File: 1, Hunk: 1}, Selected: 1, Total: 1},
		{Target: applypatch.Target{File: 1, Hunk: 2}, Total: 1, Folded: true, Feedback: reviewHunkFeedback},
		{Target: applypatch.Target{File: 2}, Selected: 1, Total: 1, Folded: true, Revised: true},
		{Target: applypatch.Target{File: 3}, Total: 1, Folded: true},
		{Target: applypatch.Target{File: 4}, Selected: 1, Total: 1, Folded: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: rows (-want +got):\n%s", label, diff)
	}
	rev, err := s.Revise(applypatch.Target{File: 2})
	if err != nil {
		t.Fatalf("%s: revise notes.md: %v", label, err)
	}
	if rev.Proposed != reviewRevisedNotes {
		t.Errorf("%s: notes.md restored as %q, want the revision %q", label, rev.Proposed, reviewRevisedNotes)
	}
	rev.Cancel()
}

// changeOneByte changes data at the last occurrence of old to new, which differ in one
// byte; where they are equal (the start of a hash) it changes the byte after it instead,
// from one hex digit to another.
func changeOneByte(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	i := bytes.LastIndex(data, []byte(old))
	if i < 0 || len(old) != len(new) {
		t.Fatalf("no %s in the saved review", old)
	}
	out := bytes.Clone(data)
	copy(out[i:], new)
	if old == new {
		j := i + len(old)
		if out[j] == '0' {
			out[j] = '1'
		} else {
			out[j] = '0'
		}
	}
	if n := diffBytes(data, out); n != 1 {
		t.Fatalf("changed %d bytes, want 1", n)
	}
	return out
}

func diffBytes(a, b []byte) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
