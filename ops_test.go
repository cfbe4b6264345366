package applypatch

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// Filesystem operations one updated file may cost, counted through faultfs with reads
// counted too (PERF1, X2, X4): resolving reads the baseline once (open, stat, read to the
// end, close); a commit checks it for the batch, checks it again just before its write,
// keeps a backup of it in the journal (X11; here a copy, since the in-memory filesystem
// has no hard links: create, write, sync, close, and remove once the commit is done),
// and writes a temporary file that it renames over the path. The bounds are what the
// transaction needs today; a change that adds an operation per file fails here.
const (
	resolveOpsPerFile = 7
	commitOpsPerFile  = 25
)

// TestOperationsPerUpdatedFile counts what resolving and committing a payload of many
// one-hunk updates costs per file, so the number cannot creep back.
func TestOperationsPerUpdatedFile(t *testing.T) {
	const files = 40
	mem := afero.NewMemMapFs()
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range files {
		name := fmt.Sprintf("pkg%d/file%d.go", i/10, i)
		if err := afero.WriteFile(mem, "/"+name, []byte("a\nb\nc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "*** Update File: %s\n@@\n a\n-b\n+B\n c\n", name)
	}
	b.WriteString("*** End Patch\n")
	p, err := Parse(b.String())
	if err != nil {
		t.Fatal(err)
	}
	ffs := faultfs.New(mem, faultfs.CountReads())
	pr, err := Resolve(context.Background(), ffs, p, &Options{Workspace: "/"})
	if err != nil {
		t.Fatal(err)
	}
	checkOps(t, "resolving", ffs.Events(), files, resolveOpsPerFile)
	ffs.Reset(faultfs.CountReads())
	if _, err := Commit(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	checkOps(t, "committing", ffs.Events(), files, commitOpsPerFile)
	if got, _ := afero.ReadFile(mem, "/pkg3/file39.go"); string(got) != "a\nB\nc\n" {
		t.Fatalf("pkg3/file39.go = %q after the commit", got)
	}
}

// checkOps fails when the events cost more than bound operations per file.
func checkOps(t *testing.T, what string, events []faultfs.Event, files, bound int) {
	t.Helper()
	byOp := map[faultfs.Op]int{}
	for _, e := range events {
		byOp[e.Op]++
	}
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(byOp)) {
		parts = append(parts, fmt.Sprintf("%s %.1f", op, float64(byOp[op])/float64(files)))
	}
	per := float64(len(events)) / float64(files)
	msg := fmt.Sprintf("%s costs %.1f filesystem operations per updated file (%s)", what, per, strings.Join(parts, ", "))
	if per > float64(bound) {
		t.Errorf("%s; want at most %d", msg, bound)
		return
	}
	t.Log(msg)
}
