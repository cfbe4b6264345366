package applypatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// largeAdds are Add sections of n files, each of many lines: a payload past draftMin.
func largeAdds(n int) []string {
	var sections []string
	for i := range n {
		sections = append(sections, fmt.Sprintf("*** Add File: gen/f%d.txt\n", i)+strings.TrimSuffix(strings.Repeat("+a generated line of text\n", 40), "\n"))
	}
	return sections
}

// drafts lists the drafts the history store holds: files a commit began and did not
// finish or remove.
func drafts(t *testing.T, fsys afero.Fs) []string {
	t.Helper()
	names, _ := afero.ReadDir(fsys, "/state/history/entries")
	var out []string
	for _, fi := range names {
		if strings.Contains(fi.Name(), ".tmp-") {
			out = append(out, fi.Name())
		}
	}
	return out
}

// hexSum is the hex SHA-256 a Snapshot holds.
func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// unsavedBuffer is an editor holding unsaved edits of the file of that base name.
type unsavedBuffer string

func (u unsavedBuffer) Unsaved(name string) bool { return path.Base(name) == string(u) }

func (unsavedBuffer) Refresh(string) error { return nil }

// twoProcessors runs the test with a second processor, where drafts are begun.
func twoProcessors(t *testing.T) {
	t.Cleanup(func(n int) func() { return func() { runtime.GOMAXPROCS(n) } }(runtime.GOMAXPROCS(2)))
}

// commits are the library's two ways to commit a payload: at once, and resolved for a
// review, then committed.
var commits = map[string]func(fsys afero.Fs, payload string, opts *Options) error{
	"Apply": func(fsys afero.Fs, payload string, opts *Options) error {
		_, err := Apply(context.Background(), fsys, payload, opts)
		return err
	},
	"ResolvePayload, Commit": func(fsys afero.Fs, payload string, opts *Options) error {
		pr, err := ResolvePayload(context.Background(), fsys, payload, opts)
		if err == nil {
			_, err = Commit(context.Background(), pr)
		}
		return err
	},
}

// U1: the commit of a large payload begins its history entry before it is final (Apply
// as soon as the payload parses) and finishes it once final: the entry lists the
// change, undo and redo restore the tree, and no draft is left after any of them.
func TestLargeEntryDrafted(t *testing.T) {
	twoProcessors(t)
	sections := largeAdds(80)
	if n := len(patch(sections...)); n < draftMin {
		t.Fatalf("the payload is %d bytes, under the %d a draft is begun for", n, draftMin)
	}
	for name, commit := range commits {
		t.Run(name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"keep.txt": "k\n"})
			if err := commit(b.fsys, patch(sections...), b.opts); err != nil {
				t.Fatal(err)
			}
			if d := drafts(t, b.fsys); len(d) != 0 {
				t.Fatalf("the commit left drafts %q", d)
			}
			entries, err := b.opts.History.Entries()
			if err != nil || len(entries) != 1 || len(entries[0].Paths) != 80 {
				t.Fatalf("Entries = %+v, %v", entries, err)
			}
			applied := b.tree()
			b.mustRevert(true)
			if got := b.tree(); !maps.Equal(got, map[string]string{"keep.txt": "k\n"}) {
				t.Fatalf("after the undo the tree holds %d files", len(got))
			}
			b.mustRevert(false)
			if got := b.tree(); !maps.Equal(got, applied) {
				t.Fatal("the redo did not restore the applied tree")
			}
			if d := drafts(t, b.fsys); len(d) != 0 {
				t.Fatalf("undo and redo left drafts %q", d)
			}
		})
	}
}

// Apply begins a draft only where it can pay: a large payload that resolves, with a
// history, on a second processor; the library's ResolvePayload, which a host reviews
// before it commits, begins none. A draft begun is there until it is recorded or
// discarded.
func TestDraftBegunWhereItPays(t *testing.T) {
	twoProcessors(t)
	ctx := context.Background()
	b := newUndoBench(t, nil)
	large, small := patch(largeAdds(80)...), patch(largeAdds(1)...)
	for _, c := range []struct {
		name    string
		payload string
		drafts  bool
		opts    *Options
		want    bool
	}{
		{"Apply, a large payload", large, true, b.opts, true},
		{"Apply, a small payload", small, true, b.opts, false},
		{"ResolvePayload", large, false, b.opts, false},
		{"no history", large, true, &Options{Workspace: workspace}, false},
	} {
		pr, err := resolvePayload(ctx, b.fsys, c.payload, c.opts, c.drafts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if begun := pr.draft != nil; begun != c.want {
			t.Errorf("%s: a draft begun: %v, want %v", c.name, begun, c.want)
		}
		pr.draft.take()
		if d := drafts(t, b.fsys); len(d) != map[bool]int{true: 1}[c.want] {
			t.Errorf("%s: the store holds drafts %q", c.name, d)
		}
		pr.draft.discard()
		if d := drafts(t, b.fsys); len(d) != 0 {
			t.Errorf("%s: a discarded draft is still there: %q", c.name, d)
		}
	}
}

// A commit that fails after its entry was begun leaves no draft and no entry: a payload
// one of whose hunks cannot be placed, one whose commit finds an editor holding unsaved
// edits of a path it writes, and one whose commit finds a path changed from the snapshot
// its host expects.
func TestDraftDiscardedWhenTheCommitFails(t *testing.T) {
	twoProcessors(t)
	for name, c := range map[string]struct {
		extra    string
		buffers  BufferHook
		expected map[string]Snapshot
	}{
		"hunk not placed":  {extra: "*** Update File: keep.txt\n@@\n-not there\n+x"},
		"unsaved edits":    {buffers: unsavedBuffer("f7.txt")},
		"snapshot changed": {expected: map[string]Snapshot{"keep.txt": {Exists: true, Hash: hexSum("another\n"), Mode: 0o644}}},
	} {
		for way, commit := range commits {
			t.Run(name+", "+way, func(t *testing.T) {
				b := newUndoBench(t, map[string]string{"keep.txt": "k\n"})
				b.opts.Expected, b.opts.Buffers = c.expected, c.buffers
				sections := largeAdds(80)
				if c.extra != "" {
					sections = append(sections, c.extra)
				}
				if err := commit(b.fsys, patch(sections...), b.opts); err == nil {
					t.Fatal("the commit succeeded")
				}
				if d := drafts(t, b.fsys); len(d) != 0 {
					t.Errorf("the failed commit left drafts %q", d)
				}
				if entries, _ := b.opts.History.Entries(); len(entries) != 0 {
					t.Errorf("the failed commit recorded %+v", entries)
				}
				if got := b.tree(); !maps.Equal(got, map[string]string{"keep.txt": "k\n"}) {
					t.Errorf("the failed commit changed the tree: %d files", len(got))
				}
			})
		}
	}
}

// A reviewed commit that finds a file changed since it was read fails once its entry is
// begun, and leaves no draft.
func TestDraftDiscardedWhenAReviewedCommitConflicts(t *testing.T) {
	twoProcessors(t)
	b := newUndoBench(t, map[string]string{"keep.txt": "k\n"})
	sections := append(largeAdds(80), "*** Update File: keep.txt\n@@\n-k\n+kept")
	pr, err := ResolvePayload(context.Background(), b.fsys, patch(sections...), b.opts)
	if err != nil {
		t.Fatal(err)
	}
	b.write("keep.txt", "changed meanwhile\n")
	if _, err := Commit(context.Background(), pr); !errors.As(err, new(*ConflictError)) {
		t.Fatalf("Commit = %v, want a conflict", err)
	}
	if d := drafts(t, b.fsys); len(d) != 0 {
		t.Errorf("the failed commit left drafts %q", d)
	}
	if entries, _ := b.opts.History.Entries(); len(entries) != 0 {
		t.Errorf("the failed commit recorded %+v", entries)
	}
}
