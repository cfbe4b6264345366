package applypatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// A host registers the tool's definition with its model, then passes each call's JSON
// arguments to Call and returns the text to the model.
func ExampleTool() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/greet.go", []byte("package greet\n\nconst Hello = \"hi\"\n"), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeEdits}}

	fmt.Println(tool.Definition().Name)
	args := json.RawMessage(`{"patchText": "*** Begin Patch\n*** Update File: greet.go\n@@\n-const Hello = \"hi\"\n+const Hello = \"hello\"\n*** End Patch"}`)
	text, res, _ := tool.Call(context.Background(), args)
	fmt.Println(text)
	fmt.Println(res.Summary())

	text, _, _ = tool.Call(context.Background(), json.RawMessage(`{"patch": "..."}`))
	fmt.Println(text)
	// Output:
	// apply_patch
	// Applied patch: 1 change
	// Applied: greet.go hunk 1
	// ApplyPatch: 1 file · 1 change (+1 -1)
	// Error: invalid arguments: unknown argument "patch": the only argument is "patchText", a string holding the whole patch; remove the others
}

// A host on the OpenAI Responses API hands each apply_patch_call item to CallResponses
// and sends the apply_patch_call_output back.
func ExampleTool_CallResponses() {
	tool := &applypatch.Tool{FS: afero.NewMemMapFs(), Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeEdits}}
	item := json.RawMessage(`{"type": "apply_patch_call", "call_id": "call_1",
		"operation": {"type": "create_file", "path": "notes.txt", "diff": "+remember the milk\n"}}`)
	out, _, _ := tool.CallResponses(context.Background(), item)
	fmt.Println(string(out))
	// Output:
	// {"type":"apply_patch_call_output","call_id":"call_1","status":"completed","output":"Applied patch: 1 change\nApplied: notes.txt"}
}

// In ask mode the tool hands each call to the host's Reviewer, here one that keeps the
// code change, turns down the new file with a comment, and submits.
func ExampleTool_ask() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/greet.go", []byte("package greet\n\nconst Hello = \"hi\"\n"), 0o644)
	reviewer := applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		notes, err := s.Find("NOTES.md", 0)
		if err != nil {
			return err
		}
		// Feedback on an added file turns it down; the code change stays selected.
		if err := s.SetFeedback(notes, "keep notes out of the repository"); err != nil {
			return err
		}
		_, err = s.Submit(ctx)
		return err
	})
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeAsk}, Reviewer: reviewer}

	args := json.RawMessage(`{"patchText": "*** Begin Patch\n*** Update File: greet.go\n@@\n-const Hello = \"hi\"\n+const Hello = \"hello\"\n*** Add File: NOTES.md\n+todo\n*** End Patch"}`)
	text, res, _ := tool.Call(context.Background(), args)
	fmt.Println(text)
	fmt.Println(res.Summary())
	// Output:
	// Applied patch: 1 change
	// Applied: greet.go hunk 1
	// Rejected: NOTES.md
	// Feedback: NOTES.md: keep notes out of the repository
	// ApplyPatch: 1 file · 1/2 changes · 1 comment sent (+1 -1)
}

// A host on the OpenAI Responses API may offer the tool as a freeform (custom) tool whose
// input a Lark grammar constrains, and hand each custom_tool_call item to CallResponses.
func ExampleTool_FreeformDefinition() {
	tool := &applypatch.Tool{FS: afero.NewMemMapFs(), Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeEdits}}
	def := tool.FreeformDefinition()
	fmt.Println(def.Name, strings.HasPrefix(def.Grammar, "start:"))

	item, _ := json.Marshal(map[string]string{"type": "custom_tool_call", "call_id": "call_2", "name": "apply_patch",
		"input": "*** Begin Patch\n*** Add File: notes.txt\n+remember the milk\n*** End Patch\n"})
	out, _, _ := tool.CallResponses(context.Background(), item)
	fmt.Println(string(out))
	// Output:
	// apply_patch true
	// {"type":"custom_tool_call_output","call_id":"call_2","output":"Applied patch: 1 change\nApplied: notes.txt"}
}

// A response that edits several files applies as one change: here one call's hunk is not
// in its file, so neither file is written and each call is told why.
func ExampleTool_Respond() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/a.txt", []byte("one\ntwo\n"), 0o644)
	afero.WriteFile(fsys, "/project/b.txt", []byte("three\n"), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeEdits}}
	items := []json.RawMessage{
		json.RawMessage(`{"type": "apply_patch_call", "call_id": "call_1", "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-two\n+TWO\n"}}`),
		json.RawMessage(`{"type": "apply_patch_call", "call_id": "call_2", "operation": {"type": "update_file", "path": "b.txt", "diff": "@@\n-four\n+FOUR\n"}}`),
	}
	outs, _, _ := tool.Respond(context.Background(), items)
	var first struct{ Status, Output string }
	json.Unmarshal(outs[0], &first)
	fmt.Println(first.Status)
	fmt.Println(first.Output)
	b, _ := afero.ReadFile(fsys, "/project/a.txt")
	fmt.Printf("%q\n", b)
	// Output:
	// failed
	// Error: not applied: the calls of one response apply together or not at all, and call call_2 (b.txt) failed; fix it and send every call of the response again.
	// "one\ntwo\n"
}
