package applypatch_test

import (
	"context"
	"encoding/json"
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
