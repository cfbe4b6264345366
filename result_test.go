package applypatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// S1, S2, S5, M8: the model-visible text and the render data of a settled review: one
// item a line in payload order, singular for one change, fuzzy hunks reported, per-file
// diffs of the selected changes only, locators left out, authored paths.
func TestResultRenderData(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.txt": "head\nx  \ny\nz\n",
		"d.txt": "",
		"p.txt": "p\n",
	}, patch(
		"*** Update File: ./a.txt", "@@", " head", "@@", " x", "-y", "+Y", "@@", "-z", "+Z",
		"*** Add File: n.txt", "+x", "+",
		"*** Delete File: d.txt",
		"*** Update File: p.txt", "*** Move to: q.txt"))
	f.must(f.s.Select(Target{1, 2}, false, nil))
	res := f.submit()
	want := []string{
		"Applied patch: 4 changes",
		"Applied: ./a.txt hunk 1",
		"Fuzzy: ./a.txt hunk 1 matched while ignoring trailing whitespace",
		"Rejected: ./a.txt hunk 2",
		"Applied: n.txt",
		"Applied: d.txt",
		"Applied: p.txt -> q.txt",
	}
	if diff := cmp.Diff(want, strings.Split(res.Text(), "\n")); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	data, err := json.Marshal(res)
	f.must(err)
	var got map[string]any
	f.must(json.Unmarshal(data, &got))
	for key, wantVal := range map[string]any{"kind": "patch", "applied": 4.0, "total": 5.0, "comments": 0.0, "reviewed": true} {
		if got[key] != wantVal {
			t.Errorf("render data %s = %v, want %v", key, got[key], wantVal)
		}
	}
	wantFiles := []FileResult{
		{Path: "./a.txt", Kind: "update", Added: 1, Removed: 1, Diff: "@@\n x  \n-y\n+Y", Fuzzy: true}, // the file's lines
		{Path: "n.txt", Kind: "add", Added: 2, Diff: "+x\n+", Mode: 0o644},
		{Path: "d.txt", Kind: "delete"},
		{Path: "p.txt", MovePath: "q.txt", Kind: "move"},
	}
	if diff := cmp.Diff(wantFiles, res.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{want[2], want[3]}, res.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// S3: the transcript summary line, as pinned by mevedel's tests.
func TestResultSummary(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{Status: StatusApplied, Applied: 3, Total: 3, Files: []FileResult{{Added: 2}, {Added: 1, Removed: 1}}}, "ApplyPatch: 2 files · 3 changes (+3 -1)"},
		{Result{Status: StatusApplied, Applied: 1, Total: 3, Comments: 2, Files: []FileResult{{Added: 1, Removed: 1}}}, "ApplyPatch: 1 file · 1/3 changes · 2 comments sent (+1 -1)"},
		{Result{Status: StatusRevision, Total: 3, Comments: 1}, "ApplyPatch: revision requested · 1 comment sent"},
		{Result{Status: StatusApplied, Applied: 1, Total: 1, Files: []FileResult{{Added: 1}}}, "ApplyPatch: 1 file · 1 change (+1 -0)"},
	} {
		if got := tc.r.Summary(); got != tc.want {
			t.Errorf("summary = %q, want %q", got, tc.want)
		}
	}
}

// S3: the body lists each file with its heading and diff, then the notes; a reviewed
// result opens on a preview of its first two changes, each cut to 20 lines.
func TestResultBodyAndPreview(t *testing.T) {
	long := strings.Repeat("+l\n", 25)
	f := newFixture(t, map[string]string{"one.txt": twelve.file}, twelve.payload)
	f.must(f.s.SetFeedback(Target{}, "thanks"))
	res := f.submit()
	if !strings.HasPrefix(res.body(), "M one.txt · +2 −2\n@@\n one\n-two") || !strings.HasSuffix(res.body(), "\n\nFeedback (whole patch): thanks") {
		t.Errorf("body:\n%s", res.body())
	}
	if res.preview() != res.body()[:strings.Index(res.body(), "\n\n")] {
		t.Errorf("preview of two changes:\n%s", res.preview())
	}

	r := &Result{Status: StatusApplied, Reviewed: true, Applied: 4, Total: 4, Files: []FileResult{
		{Path: "big.txt", Kind: "add", Added: 25, Diff: strings.TrimSuffix(long, "\n")},
		{Path: "u.txt", Kind: "update", Diff: "@@\n-a\n+b\n@@\n-c\n+d\n@@ x\n-e\n+f"},
	}}
	lines := strings.Split(r.preview(), "\n")
	if lines[0] != "A big.txt · +25 −0" || len(lines) != 1+20+1+1+3+1 || lines[21] != "…" || lines[len(lines)-1] != "… 2 more changes" {
		t.Errorf("preview:\n%s", r.preview())
	}
	r.Reviewed = false
	if r.preview() != "" {
		t.Error("an unreviewed result previews")
	}
}

// S4: rejecting everything without feedback is an error; feedback with nothing applied is
// a successful revision request; applied changes with feedback are a success too.
func TestResultRejectAndRevision(t *testing.T) {
	f := newFixture(t, twoFiles.files, twoFiles.payload)
	f.must(f.s.Select(Target{}, false, nil))
	res, err := f.s.Submit(context.Background())
	if err == nil || res.Text() != "Error: Patch rejected" {
		t.Errorf("nothing selected: %v %s", err, res.Text())
	}
	g := newFixture(t, twoFiles.files, twoFiles.payload)
	g.must(g.s.SetFeedback(Target{File: 2}, "rename it"))
	res = g.submit()
	if res.Status != StatusApplied || res.Comments != 1 || !strings.HasPrefix(res.Summary(), "ApplyPatch: 2 files · 3 changes · 1 comment sent") {
		t.Errorf("applied with feedback: %s / %s", res.Text(), res.Summary())
	}
}

// S3: the preview counts an empty Delete as one change, like any whole Add or Delete.
func TestPreviewCountsEmptyChanges(t *testing.T) {
	r := &Result{Reviewed: true, Applied: 4, Total: 4, Files: []FileResult{
		{Path: "a.txt", Kind: "update", Diff: "@@\n-a\n+A\n@@\n-b\n+B"},
		{Path: "e.txt", Kind: "delete"},
		{Path: "n.txt", Kind: "add", Diff: "+new"},
	}}
	if p := r.preview(); !strings.HasSuffix(p, "… 2 more changes") {
		t.Errorf("preview ends %q, want two more changes (the empty Delete and the Add)", p[max(0, len(p)-40):])
	}
}

// TestResultJSONRoundTrip: a Result decoded from its JSON renders the same text, summary
// and body as the original (S1).
func TestResultJSONRoundTrip(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/a.txt", []byte("one  \ntwo\nthree\n"), 0o644)
	afero.WriteFile(fsys, "/b.txt", []byte("b\n"), 0o644)
	pr, err := ResolvePayload(context.Background(), fsys, "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n"+
		"*** Update File: b.txt\n@@\n-b\n+B\n*** Add File: c.txt\n+c\n*** End Patch\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(pr)
	if err := s.SetFeedback(Target{File: 2, Hunk: 1}, "keep b lowercase"); err != nil {
		t.Fatal(err)
	}
	res, err := s.Submit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if len(res.Items) < 3 || back.Text() != res.Text() || back.Summary() != res.Summary() || back.body() != res.body() {
		t.Errorf("decoded result renders\n%s\nwant\n%s", back.Text(), res.Text())
	}
}
