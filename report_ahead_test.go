package applypatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// manyHunks is a file of n numbered lines, each followed by one to keep, and an
// Update's body of n hunks, each changing one of them.
func manyHunks(n int) (file, body string) {
	var f, b strings.Builder
	for i := range n {
		fmt.Fprintf(&f, "line %d\nkeep %d\n", i, i)
		fmt.Fprintf(&b, "@@\n-line %d\n+LINE %d\n keep %d\n", i, i, i)
	}
	return f.String(), b.String()
}

// A result built beside the commit is the one built after it (PERF5): a file with more
// hunks than resultAheadMin, committed with a history, whose callbacks run during the
// commit, on the operating system's filesystem. Under -race, any write to the proposal
// during the commit shows.
func TestResultBuiltBesideCommit(t *testing.T) {
	root := t.TempDir()
	file, body := manyHunks(3 * resultAheadMin)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := "*** Begin Patch\n*** Update File: a.txt\n" + body + "*** End Patch\n"
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

// A host's callbacks are called one at a time, on the committing goroutine: a result
// that would ask the host for a deleted file's encoding is built after the commit, not
// beside it (PERF5, X8). The host here declares encodings and answers, before each
// step, whether it owns the file; every encoding it is asked for during the commit comes
// after its last answer about ownership.
func TestResultAsksHostAfterTheCommit(t *testing.T) {
	root := t.TempDir()
	file, body := manyHunks(3 * resultAheadMin)
	for name, data := range map[string]string{"a.txt": file, "gone.txt": "old\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	payload := "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: a.txt\n" + body + "*** End Patch\n"
	var mu sync.Mutex
	var events []string
	note := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	opts := &Options{Workspace: root,
		Encoding: func(name string) (encoding.Encoding, string) { note("encoding"); return nil, "" },
		Owner: ownerFunc(func(name string) bool {
			note("owner")
			time.Sleep(2 * time.Millisecond) // the commit's steps spread out, for a result beside them to show
			return true
		})}
	ctx := context.Background()
	pr, err := ResolvePayload(ctx, afero.NewOsFs(), payload, opts)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	events = nil // what the resolve asked
	mu.Unlock()
	res, err := Commit(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Applied != 3*resultAheadMin+1 {
		t.Errorf("applied %d, want %d", res.Applied, 3*resultAheadMin+1)
	}
	last := strings.LastIndex(strings.Join(events, " "), "owner")
	first := strings.Index(strings.Join(events, " "), "encoding")
	if first < 0 || last < 0 || first < last {
		t.Errorf("the host was asked, in order: %v; want every encoding after the last owner", events)
	}
}
