package main

import (
	"context"
	"strings"
	"testing"
)

// TestRun checks the host loop end to end: the refused turn writes nothing and tells the
// model what to do; the corrected turn applies both operations.
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
		"--- turn 2: ApplyPatch: 2 files · 2 changes (+2 -1)\nApplied patch: 2 changes\nApplied: greet.go hunk 1\nApplied: greet_test.go\n",
		"--- greet.go\npackage greet\n\n// Greet says hello.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "Applied: greet_test.go") != 1 {
		t.Errorf("greet_test.go was reported added more than once:\n%s", got)
	}
}
