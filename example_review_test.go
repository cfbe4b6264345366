package applypatch_test

import (
	"context"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

const greetPayload = `*** Begin Patch
*** Update File: greet.go
@@ func hello
-	return "hello"
+	return "hello, world"
@@ func bye
-	return "bye"
+	return "goodbye"
*** End Patch
`

const greetFile = `package greet
func hello() string {
	return "hello"
}
func bye() string {
	return "bye"
}
`

// resolveGreet resolves greetPayload against an in-memory workspace.
func resolveGreet() (afero.Fs, *applypatch.Proposal) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/greet.go", []byte(greetFile), 0o644)
	pr, err := applypatch.ResolvePayload(context.Background(), fsys, greetPayload, &applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeAsk})
	if err != nil {
		panic(err)
	}
	return fsys, pr
}

// A front end renders the live review and calls its methods; here it keeps the first
// hunk, sends feedback on the second and submits.
func ExampleReview() {
	fsys, pr := resolveGreet()
	terminal := applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		s.Fold(applypatch.Target{}, false)
		fmt.Println(s.Render())
		bye, _ := s.Find("greet.go", 2)
		s.SetFeedback(bye, "Keep \"bye\": callers match on it.")
		fmt.Println(s.View().Action)
		_, err := s.Submit(ctx)
		return err
	})
	res, err := applypatch.Review(context.Background(), pr, terminal)
	if err != nil {
		panic(err)
	}
	fmt.Println()
	fmt.Println(res.Text())
	fmt.Println(res.Summary())
	written, _ := afero.ReadFile(fsys, "/ws/greet.go")
	fmt.Print(string(written))
	// Output:
	// ApplyPatch · 1 file · 2/2 changes · +2 −2
	//
	// ▼ ✓ M greet.go · 2/2 · +2 −2
	//     ✓ @@ func hello · +1 −1
	//        3 - │ 	return "hello"
	//        3 + │ 	return "hello, world"
	//     ✓ @@ func bye · +1 −1
	//        6 - │ 	return "bye"
	//        6 + │ 	return "goodbye"
	//
	// [ Apply 2 changes in 1 file ]   [ Reject all ]
	// Apply 1 change in 1 file · send 1 comment
	//
	// Applied patch: 1 change
	// Applied: greet.go hunk 1
	// Rejected: greet.go hunk 2
	// Feedback: greet.go hunk 2: Keep "bye": callers match on it.
	// ApplyPatch: 1 file · 1/2 changes · 1 comment sent (+1 -1)
	// package greet
	// func hello() string {
	// 	return "hello, world"
	// }
	// func bye() string {
	// 	return "bye"
	// }
}

// A person revises a file's result by hand before the patch is submitted: the reviewer
// opens a revision, adopts the edited text, and submits. The two nearby changes become
// one derived hunk.
func ExampleSession_Revise() {
	fsys, pr := resolveGreet()
	edited := `package greet
func hello() string {
	return "hello, world"
}
func bye() string {
	return "see you"
}
`
	reviser := applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		greet, err := s.Find("greet.go", 0)
		if err != nil {
			return err
		}
		rev, err := s.Revise(greet) // rev.Baseline and rev.Proposed are the two sides to show
		if err != nil {
			return err
		}
		if err := rev.Adopt(edited, applypatch.DiscardFeedback); err != nil {
			rev.Cancel()
			return err
		}
		_, err = s.Submit(ctx)
		return err
	})
	res, err := applypatch.Review(context.Background(), pr, reviser)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	written, _ := afero.ReadFile(fsys, "/ws/greet.go")
	fmt.Println(string(written) == edited)
	// Output:
	// Applied patch: 1 change (1 revised by the user during review)
	// User edited during review (authoritative): greet.go (whole file revised)
	// The user rewrote this file's change before approving it. The applied content below is what they chose: treat it as intentional, and do not revert or "correct" it.
	//  package greet
	//  func hello() string {
	// -	return "hello"
	// +	return "hello, world"
	//  }
	//  func bye() string {
	// -	return "bye"
	// +	return "see you"
	//  }
	// Applied: greet.go hunk 1
	// true
}

// The collaboration card is plain data for a remote surface; publish it again only when
// its hash changes.
func ExampleSession_Card() {
	_, pr := resolveGreet()
	s := applypatch.NewSession(pr)
	before := s.Card(applypatch.CardOptions{})
	s.Fold(applypatch.Target{}, false) // folding is not content
	bye, _ := s.Find("greet.go", 2)
	s.Select(bye, false, nil)
	after := s.Card(applypatch.CardOptions{})
	fmt.Println(after.Action)
	fmt.Println(after.Notice)
	fmt.Println(before.Hash != after.Hash)
	// Output:
	// Apply 1 change in 1 file
	// A read-only preview of the selected changes; the person reviewing the patch chooses and edits them.
	// Rejected: greet.go hunk 2
	// true
}

// A review can pause: the Reviewer saves it and ends the call, and the host resumes it
// later, here with a Reviewer that submits. The restored review checks every baseline
// again before it writes.
func ExampleRestoreSession() {
	ctx := context.Background()
	fsys := workspace()
	pr, _ := applypatch.ResolvePayload(ctx, fsys, payload, nil)

	var saved []byte
	_, err := applypatch.Review(ctx, pr, applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		s.Select(applypatch.Target{File: 3}, false, nil) // keep old.txt
		saved, _ = s.Save(applypatch.SaveOptions{})
		s.Abort() // the person answers later
		return nil
	}))
	fmt.Println(err)

	s, err := applypatch.RestoreSession(ctx, fsys, saved, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.Run(ctx, applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		_, err := s.Submit(ctx) // the person approves what they paused on
		return err
	}))
	fmt.Println(res.Text(), err)
	// Output:
	// Patch review aborted
	// Applied patch: 2 changes
	// Applied: greet.go hunk 1
	// Fuzzy: greet.go hunk 1 matched while ignoring trailing whitespace
	// Applied: docs/NOTES.md
	// Rejected: old.txt <nil>
}

// A front end draws everything from one View, so its rows and counts never disagree, and
// toggles a row as a space bar does: a row with anything selected is deselected, any other
// row selected.
func ExampleSession_View() {
	_, pr := resolveGreet()
	s := applypatch.NewSession(pr)
	s.Fold(applypatch.Target{}, false)
	bye, _ := s.Find("greet.go", 2)
	s.Select(bye, false, nil)
	file := s.View().Rows[0] // partly selected
	s.Select(file.Target, file.Selected == 0, applypatch.DiscardFeedback)

	v := s.View()
	fmt.Println(v.Header)
	for _, r := range v.Rows {
		fmt.Printf("%s %+v: %s\n", r.Glyph, r.Target, r.Counts)
	}
	fmt.Println(v.Action)
	// Output:
	// ApplyPatch · 1 file · 0/2 changes · +0 −0
	// ✗ {File:1 Hunk:0}: 0/2
	// ✗ {File:1 Hunk:1}: +1 −1
	// ✗ {File:1 Hunk:2}: +1 −1
	// Reject patch
}
