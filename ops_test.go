package applypatch

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/applypatch/applypatch/internal/filestate"
)

// Filesystem operations one updated file may cost, counted through faultfs with reads
// counted too (PERF1, X2, X4): resolving reads the baseline once (open, stat, read to the
// end, close); a commit checks it for the batch, checks it again just before its write,
// keeps a backup of it in the journal (X11; here a copy, since the in-memory filesystem
// has no hard links: create, write, sync, close, and remove once the commit is done),
// writes a temporary file, looks at the path once more (X2: a write made meanwhile is
// not overwritten) and renames the temporary file over it. The bounds are what the
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
	msg := fmt.Sprintf("%s costs %.1f filesystem operations per file (%s)", what, per, strings.Join(parts, ", "))
	if per > float64(bound) {
		t.Errorf("%s; want at most %d", msg, bound)
		return
	}
	t.Log(msg)
}

// Operations one updated file may cost on the operating system's filesystem through
// Apply (PERF1, X2, X4, X11), which reads each baseline under its lock, so that read is
// the batch check. The read stops at the file's measured size, with no read that only
// finds the end, and the check just before the write compares the read's metadata with
// what the fence's walk of the path just found, with no look of its own. The journal's
// backup is a hard link (a link, and a removal at the end), the temporary file's mode is
// set by name, and one look at the path, once the new bytes are written, comes just
// before the rename (X2).
const applyOpsPerFile = 18

// Operations one added file may cost on the operating system's filesystem through
// Apply (PERF1, PERF5, X3, X4): the checks of its absence when it is resolved, and a
// temporary file written, its mode set, then renamed into place by a rename that refuses
// a name that exists (where a plain rename would replace a file another program created
// at the path after the checks); since it refuses such a name, the walk just before the
// write looks at the directory only, not again at the name. Where the filesystem lacks
// that rename, the file is hard-linked into place and its temporary name removed: one
// operation more.
const applyOpsPerAddedFile = 10

// TestApplyOperationsPerAddedFile counts what Apply costs per added file on the
// operating system's filesystem, into directories that exist.
func TestApplyOperationsPerAddedFile(t *testing.T) {
	const files = 40
	root := t.TempDir()
	osfs := afero.NewOsFs()
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range files {
		if i%10 == 0 {
			if err := osfs.Mkdir(filepath.Join(root, fmt.Sprintf("pkg%d", i/10)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&b, "*** Add File: pkg%d/file%d.go\n+a\n+b\n", i/10, i)
	}
	b.WriteString("*** End Patch\n")
	ffs := faultfs.New(osfs, faultfs.CountReads())
	if _, err := Apply(context.Background(), ffs, b.String(), &Options{Workspace: root}); err != nil {
		t.Fatal(err)
	}
	bound := applyOpsPerAddedFile
	if slices.ContainsFunc(ffs.Events(), func(e faultfs.Event) bool { return e.Op == faultfs.OpLink }) {
		bound++ // no rename that refuses a name here: linked, and the temporary name removed
	}
	checkOps(t, "applying", ffs.Events(), files, bound)
	if got, _ := afero.ReadFile(osfs, filepath.Join(root, "pkg3/file39.go")); string(got) != "a\nb\n" {
		t.Fatalf("pkg3/file39.go = %q after the commit", got)
	}
}

// Lookups one updated file may cost on the host's filesystem when the workspace is
// given as an os.Root (fs/rootfs), as the command line gives it: the fence's look at the
// path when it resolves it and its two looks (the parent and the file) just before the
// write, the parent shared by the files of a directory at resolve time, and a few looks
// for each directory (its parents, before its first write). Every read and write goes
// through the root.
const hostLookupsPerFile = 4

// osUpdateTree writes files small files in directories of ten on the OS filesystem and
// returns their root and a payload that updates each; it waits until the files are older
// than the racy window, since files changed just before a read are read again before
// their write.
func osUpdateTree(t *testing.T, files int) (root, payload string) {
	t.Helper()
	root = t.TempDir()
	osfs := afero.NewOsFs()
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range files {
		name := fmt.Sprintf("pkg%d/file%d.go", i/10, i)
		if err := osfs.MkdirAll(filepath.Join(root, fmt.Sprintf("pkg%d", i/10)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(osfs, filepath.Join(root, name), []byte("a\nb\nc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "*** Update File: %s\n@@\n a\n-b\n+B\n c\n", name)
	}
	b.WriteString("*** End Patch\n")
	time.Sleep(2 * filestate.RacyWindow)
	return root, b.String()
}

// TestApplyOperationsPerUpdatedFile counts what Apply costs per file on the operating
// system's filesystem, where a file's metadata tells whether it changed.
func TestApplyOperationsPerUpdatedFile(t *testing.T) {
	const files = 40
	root, payload := osUpdateTree(t, files)
	osfs := afero.NewOsFs()
	ffs := faultfs.New(osfs, faultfs.CountReads())
	if _, err := Apply(context.Background(), ffs, payload, &Options{Workspace: root}); err != nil {
		t.Fatal(err)
	}
	checkOps(t, "applying", ffs.Events(), files, applyOpsPerFile)
	if got, _ := afero.ReadFile(osfs, filepath.Join(root, "pkg3/file39.go")); string(got) != "a\nB\nc\n" {
		t.Fatalf("pkg3/file39.go = %q after the commit", got)
	}
}

// TestApplyHostLookupsPerUpdatedFile counts what Apply costs per file on the host's
// filesystem when the workspace is an os.Root: only the fence's lookups (PERF1, F1).
func TestApplyHostLookupsPerUpdatedFile(t *testing.T) {
	const files = 40
	root, payload := osUpdateTree(t, files)
	osfs := afero.NewOsFs()
	ws, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	host := faultfs.New(osfs, faultfs.CountReads())
	if _, err := Apply(context.Background(), host, payload, &Options{Workspace: root, WorkspaceFs: ws}); err != nil {
		t.Fatal(err)
	}
	checkOps(t, "applying through a root, on the host,", host.Events(), files, hostLookupsPerFile)
	if got, _ := afero.ReadFile(osfs, filepath.Join(root, "pkg3/file39.go")); string(got) != "a\nB\nc\n" {
		t.Fatalf("pkg3/file39.go = %q after the commit", got)
	}
}
