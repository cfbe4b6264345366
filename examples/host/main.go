// Command host is the smallest complete agent host around applypatch: it registers the
// apply_patch tool, hands the model's calls to it, and returns the text to the model. The
// tool runs in ask mode, and the person reviewing each patch is a Reviewer that makes the
// choices a person would make in a front end. The workspace is an in-memory filesystem and
// the model is a script too, so it runs anywhere:
//
//	go run .
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// turns are what a model sends: the first patch has a stale context line, so it is
// refused with nothing written; the second, after "re-reading" the file, is reviewed.
var turns = []string{
	`{"patchText": "*** Begin Patch\n*** Update File: greet.go\n@@ func Greet(name string) string {\n-\treturn \"Hi, \" + name\n+\treturn \"Hello, \" + name + \"!\"\n*** Add File: greet_test.go\n+package greet\n*** End Patch"}`,
	`{"patchText": "*** Begin Patch\n*** Update File: greet.go\n@@ func Greet(name string) string {\n-\treturn \"Hello \" + name\n+\treturn \"Hello, \" + name + \"!\"\n*** Add File: greet_test.go\n+package greet\n*** End Patch"}`,
}

// review is what the person does with each patch, through the review session a front end
// drives: keep the code change, turn the empty test file down with a comment, and apply.
// A terminal, an editor or a web page makes the same calls on the person's behalf.
var review = applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
	test, err := s.Find("greet_test.go", 0)
	if err != nil {
		return err
	}
	// Feedback on an added file turns it down; the code change stays selected.
	if err := s.SetFeedback(test, "write a real test, or leave the file out"); err != nil {
		return err
	}
	_, err = s.Submit(ctx) // a conflict keeps the review open; this host gives up instead
	return err
})

const greet = "package greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"Hello \" + name\n}\n"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "host:", err)
		os.Exit(1)
	}
}

// run is the host: one workspace, one tool, one call per model turn.
func run(ctx context.Context, w io.Writer) error {
	fsys := afero.NewMemMapFs()
	if err := afero.WriteFile(fsys, "/project/greet.go", []byte(greet), 0o644); err != nil {
		return err
	}
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/project", Mode: applypatch.ModeAsk}, Reviewer: review}
	// A host undoes a commit its last run left interrupted before it serves the model.
	if _, err := applypatch.Recover(ctx, fsys, &tool.Options); err != nil {
		return err
	}

	def := tool.Definition() // what the host registers with its model
	fmt.Fprintf(w, "registered %s (%d-byte description)\n", def.Name, len(def.Description))

	for i, args := range turns {
		text, res, _ := tool.Call(ctx, json.RawMessage(args))
		fmt.Fprintf(w, "\n--- turn %d: %s\n%s\n", i+1, res.Summary(), text)
	}

	entries, err := afero.ReadDir(fsys, "/project")
	if err != nil {
		return err
	}
	fmt.Fprint(w, "\n--- workspace:")
	for _, e := range entries {
		fmt.Fprint(w, " ", e.Name())
	}
	b, err := afero.ReadFile(fsys, "/project/greet.go")
	fmt.Fprintf(w, "\n\n--- greet.go\n%s", b)
	return err
}
