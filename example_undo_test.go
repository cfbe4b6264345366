package applypatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// The README's undo snippet: a history records each commit; Undo proposes the inverse,
// which commits like any proposal and keeps an edit made since elsewhere in the file.
func ExampleUndo() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/app.go", []byte("a\nb\nc\nd\ne\nf\ng\nh\n"), 0o644)
	opts := &applypatch.Options{Workspace: "/ws", History: applypatch.NewHistory(fsys, "/state/history")}

	applypatch.Apply(ctx, fsys, "*** Begin Patch\n*** Update File: app.go\n@@\n a\n-b\n+B\n c\n*** End Patch", opts)
	afero.WriteFile(fsys, "/ws/app.go", []byte("a\nB\nc\nd\ne\nf\ng\nh, mine\n"), 0o644) // an edit since

	pr, err := applypatch.Undo(ctx, fsys, opts) // an ordinary proposal: review it, or commit it
	if err != nil {
		fmt.Println(err) // a file edited where the change wrote, deleted or created since
		return
	}
	applypatch.Commit(ctx, pr)
	b, _ := afero.ReadFile(fsys, "/ws/app.go")
	fmt.Printf("%q\n", b)

	_, err = applypatch.Undo(ctx, fsys, opts)
	fmt.Println(errors.Is(err, applypatch.ErrNothingToUndo))
	pr, _ = applypatch.Redo(ctx, fsys, opts)
	res, _ := applypatch.Commit(ctx, pr)
	fmt.Println(strings.HasPrefix(res.Notes[len(res.Notes)-1], "Redid the change"))
	// Output:
	// "a\nb\nc\nd\ne\nf\ng\nh, mine\n"
	// true
	// true
}

// An agent host that offers its model an undo tool hands each call to Tool.Undo: in
// edits mode it is committed at once, waiting for a commit in flight, and its text
// tells the model what was reverted.
func ExampleTool_Undo() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/greet.go", []byte("const Hello = \"hi\"\n"), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{
		Workspace: "/project", Mode: applypatch.ModeEdits, History: applypatch.NewHistory(fsys, "/state/history")}}

	tool.Call(ctx, json.RawMessage(`{"patchText": "*** Begin Patch\n*** Update File: greet.go\n@@\n-const Hello = \"hi\"\n+const Hello = \"hello\"\n*** End Patch"}`))
	res, _ := tool.Undo(ctx)
	fmt.Println(strings.HasPrefix(res.Notes[len(res.Notes)-1], "Undid the change"))
	b, _ := afero.ReadFile(fsys, "/project/greet.go")
	fmt.Printf("%q\n", b)
	_, err := tool.Undo(ctx)
	fmt.Println(errors.Is(err, applypatch.ErrNothingToUndo))
	// Output:
	// true
	// "const Hello = \"hi\"\n"
	// true
}
