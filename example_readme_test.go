package applypatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// The README's first snippet: apply a payload to an in-memory workspace.
func Example_readmeApply() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs() // or afero.NewOsFs(), or rootfs.Open(dir)
	afero.WriteFile(fsys, "/hello.txt", []byte("hello\nworld\n"), 0o644)

	res, err := applypatch.Apply(ctx, fsys, `*** Begin Patch
*** Update File: hello.txt
@@
-world
+there
*** End Patch`, nil)
	fmt.Println(res.Text(), err)
	// Output:
	// Applied patch: 1 change
	// Applied: hello.txt hunk 1 <nil>
}

// The README's path-authority snippet: extend the default lists.
func Example_readmeOptions() {
	opts := &applypatch.Options{
		Protected: []string{".git", "deploy"}, // replaces the default, .git
		Forbidden: []string{".kube/config"},   // added to the built-in credential paths
	}
	fmt.Println(opts.Protected)
	// Output:
	// [.git deploy]
}

// The README's review snippet: a Reviewer that comments on one hunk and submits the rest.
func Example_readmeReview() {
	ctx := context.Background()
	fsys := workspace()
	proposal, _ := applypatch.ResolvePayload(ctx, fsys, payload, nil)

	res, err := applypatch.Review(ctx, proposal, applypatch.ReviewerFunc(
		func(ctx context.Context, s *applypatch.Session) error {
			t, _ := s.Find("greet.go", 1)       // the first changing hunk of greet.go
			s.SetFeedback(t, "Keep this name.") // feedback on a hunk deselects it
			_, err := s.Submit(ctx)             // commits the selection; a conflict keeps the review open
			return err
		}))
	fmt.Println(res.Text(), err)
	// Output:
	// Applied patch: 2 changes
	// Rejected: greet.go hunk 1
	// Feedback: greet.go hunk 1: Keep this name.
	// Applied: docs/NOTES.md
	// Applied: old.txt <nil>
}

// The README's Tool snippet: register the definition, hand each call's arguments to Call.
func Example_readmeTool() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	root := "/project"
	// A terminal, an editor, a web page, a policy: here, one that applies what was proposed.
	myFrontEnd := applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		_, err := s.Submit(ctx)
		return err
	})
	argsJSON := json.RawMessage(`{"patchText": "*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch"}`)

	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: root}, Reviewer: myFrontEnd}
	def := tool.Definition()                   // register def.Name, def.Description, def.Parameters
	text, res, err := tool.Call(ctx, argsJSON) // text goes back to the model; res is render data
	fmt.Println(def.Name, res.Reviewed, err)
	fmt.Println(text)
	// Output:
	// apply_patch true <nil>
	// Applied patch: 1 change
	// Applied: notes.txt
}

// The README's undo snippet: record a commit in a history, then revert it.
func Example_readmeUndo() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/hello.txt", []byte("hello\nworld\n"), 0o644)
	payload := "*** Begin Patch\n*** Update File: hello.txt\n@@\n-world\n+there\n*** End Patch"
	undo := func() (*applypatch.Result, error) {
		opts := &applypatch.Options{Workspace: "/ws", History: applypatch.NewHistory(fsys, "/state/history")}
		applypatch.Apply(ctx, fsys, payload, opts)  // recorded
		pr, err := applypatch.Undo(ctx, fsys, opts) // the newest change, reverted, as a proposal
		if err != nil {
			return nil, err // ErrNothingToUndo, or a refusal naming the files changed since
		}
		return applypatch.Commit(ctx, pr) // or Review(ctx, pr, reviewer) first
	}
	res, err := undo()
	b, _ := afero.ReadFile(fsys, "/ws/hello.txt")
	fmt.Println(res.Applied, err)
	fmt.Print(string(b))
	// Output:
	// 1 <nil>
	// hello
	// world
}

// The README's edit snippet: one text-anchored edit through the same pipeline.
func Example_readmeEdit() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/main.go", []byte("package main\n\nvar greeting = \"hi\"\n"), 0o644)
	opts := &applypatch.Options{Workspace: "/ws"}
	edit := func() (*applypatch.Result, error) {
		pr, err := applypatch.ResolveEdit(ctx, fsys, applypatch.Edit{Path: "main.go", Old: `"hi"`, New: `"hello"`}, opts)
		if err != nil {
			return nil, err // a *MatchError saying where, for old text found twice or not at all
		}
		return applypatch.Commit(ctx, pr)
	}
	res, err := edit()
	fmt.Println(res.Text(), err)
	_, err = edit() // "hi" is gone now
	var me *applypatch.MatchError
	fmt.Println(errors.As(err, &me), me.Reason)
	// Output:
	// Applied patch: 1 change
	// Applied: main.go hunk 1 <nil>
	// true MatchNotFound
}
