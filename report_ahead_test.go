package applypatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// A result built beside the commit is the one built after it (PERF5): a file with more
// hunks than resultAheadMin, committed with a history, whose callbacks run during the
// commit, on the operating system's filesystem. Under -race, any write to the proposal
// during the commit shows.
func TestResultBuiltBesideCommit(t *testing.T) {
	root := t.TempDir()
	var file, body strings.Builder
	for i := range 3 * resultAheadMin {
		fmt.Fprintf(&file, "line %d\nkeep %d\n", i, i)
		fmt.Fprintf(&body, "@@\n-line %d\n+LINE %d\n keep %d\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := "*** Begin Patch\n*** Update File: a.txt\n" + body.String() + "*** End Patch\n"
	opts := &Options{Workspace: root, History: NewHistory(afero.NewOsFs(), filepath.Join(t.TempDir(), "history"))}
	ctx := context.Background()
	pr, err := ResolvePayload(ctx, afero.NewOsFs(), payload, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Commit(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	want := pr.result()
	if res.Applied != 3*resultAheadMin {
		t.Errorf("applied %d hunks, want %d", res.Applied, 3*resultAheadMin)
	}
	if diff := cmp.Diff(want.Items, res.Items); diff != "" {
		t.Errorf("items (-after +beside):\n%s", diff)
	}
	if diff := cmp.Diff(want.Files, res.Files); diff != "" {
		t.Errorf("files (-after +beside):\n%s", diff)
	}
	got, err := os.ReadFile(filepath.Join(root, "a.txt"))
	if err != nil || !strings.HasPrefix(string(got), "LINE 0\nkeep 0\nLINE 1\n") {
		t.Errorf("a.txt begins %.30q (%v)", got, err)
	}
}
