package main

import (
	"context"
	"strings"
	"testing"
)

// TestRun checks the host loop end to end: the refused turn writes nothing and tells the
// model what to do; the corrected turn is reviewed, and only what the review kept is
// written.
func TestRun(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"registered apply_patch",
		"--- turn 1: ApplyPatch: error\nError: greet.go: hunk 1 (payload line 3): ",
		"Re-read the file",
		"--- turn 2: ApplyPatch: 1 file · 1/2 changes · 1 comment sent (+1 -1)\nApplied patch: 1 change\nApplied: greet.go hunk 1\n" +
			"Rejected: greet_test.go\nFeedback: greet_test.go: write a real test, or leave the file out\n",
		"--- workspace: greet.go\n",
		"--- greet.go\npackage greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
