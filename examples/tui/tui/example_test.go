package tui_test

import (
	"context"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/tui/tui"
	"github.com/spf13/afero"
)

// A host hands the terminal reviewer to applypatch.Review. Here the "terminal" is a pipe
// that already holds the keys a person would press on the review, which opens on the diff:
// n twice to move to its second hunk, SPC to deselect it, C-c C-c to apply the rest.
func ExampleReviewer() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/greet.go", []byte("package greet\n\nfunc hello() string {\n\treturn \"hello\"\n}\n\nfunc bye() string {\n\treturn \"bye\"\n}\n"), 0o644)
	p, _ := applypatch.Parse(`*** Begin Patch
*** Update File: greet.go
@@ func hello
-	return "hello"
+	return "hello, world"
@@ func bye
-	return "bye"
+	return "goodbye"
*** End Patch`)
	pr, err := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeAsk})
	if err != nil {
		panic(err)
	}

	keys, typing, _ := os.Pipe()
	defer keys.Close()
	typing.WriteString("nn \x03\x03")
	defer typing.Close()
	reviewer := tui.Reviewer{Input: keys, Output: io.Discard,
		ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(80, 24)}}

	res, err := applypatch.Review(context.Background(), pr, reviewer)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// Applied patch: 1 change
	// Applied: greet.go hunk 1
	// Rejected: greet.go hunk 2
}
