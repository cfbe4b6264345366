package applypatch_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// oneGoroutineFs hides what the filesystem is, so the library takes it for a host's own
// afero.Fs, which may not be safe for concurrent use: baselines are read, and temporary
// files written, on the calling goroutine alone.
type oneGoroutineFs struct{ afero.Fs }

// aheadTree writes 16 files; unless clean, some the payload will not find as it expects.
func aheadTree(r *rand.Rand, fsys afero.Fs, clean bool) {
	for i := range 16 {
		var b strings.Builder
		for l := range 12 {
			fmt.Fprintf(&b, "file %d line %d\n", i, l)
		}
		switch k := r.IntN(6); {
		case clean:
		case k == 0:
			continue // missing
		case k == 1:
			b.WriteString("\x00binary\n")
		}
		afero.WriteFile(fsys, fmt.Sprintf("/ws/d%d/f%d.txt", i%3, i), []byte(b.String()), 0o644)
	}
}

// aheadPayload writes 8 to 16 operations on distinct files: updates (unless clean, some
// whose hunks do not match), deletions, moves and additions.
func aheadPayload(r *rand.Rand, clean bool) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, i := range r.Perm(16)[:8+r.IntN(9)] {
		name := fmt.Sprintf("d%d/f%d.txt", i%3, i)
		switch k := r.IntN(8); {
		case k == 0:
			fmt.Fprintf(&b, "*** Delete File: %s\n", name)
		case k == 1:
			fmt.Fprintf(&b, "*** Add File: d%d/new%d.txt\n+added %d\n", r.IntN(5), i, i)
		case k == 2:
			fmt.Fprintf(&b, "*** Update File: %s\n*** Move to: m%d/f%d.txt\n", name, r.IntN(3), i)
		default:
			l := r.IntN(10)
			want := fmt.Sprintf("file %d line %d", i, l+1)
			if !clean && r.IntN(5) == 0 {
				want = "a line no file has"
			}
			fmt.Fprintf(&b, "*** Update File: %s\n@@\n file %d line %d\n-%s\n+changed %d\n", name, i, l, want, i)
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestAheadChangesNothing applies generated payloads of many files twice, to copies of
// one tree, then undoes and redoes each change: on an in-memory filesystem, where
// baselines are read, reversals worked out and temporary files written on other
// goroutines too, and through a filesystem the library must use from one goroutine.
// Half the trees and payloads hold mistakes. The results, errors and trees are the same
// (PERF5, U2, U4).
func TestAheadChangesNothing(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		base, clean := afero.NewMemMapFs(), seed%2 == 0
		aheadTree(r, base, clean)
		payload := aheadPayload(r, clean)
		var texts [2]string
		var trees [2]map[string]string
		for i, wrap := range []bool{false, true} {
			fsys := copyFs(t, base)
			var target afero.Fs = fsys
			if wrap {
				target = oneGoroutineFs{fsys}
			}
			opts := &applypatch.Options{Workspace: "/ws", History: applypatch.NewHistory(target, "/state/history")}
			res, err := applypatch.Apply(context.Background(), target, payload, opts)
			texts[i] = fmt.Sprintf("%v\n%s", err, res.Text())
			for _, revert := range []func(context.Context, afero.Fs, *applypatch.Options) (*applypatch.Proposal, error){
				applypatch.Undo, applypatch.Redo,
			} {
				if err != nil {
					break
				}
				var pr *applypatch.Proposal
				if pr, err = revert(context.Background(), target, opts); err == nil {
					res, err = applypatch.Commit(context.Background(), pr)
				}
				texts[i] += fmt.Sprintf("\n%v\n%s", err, res.Text())
			}
			texts[i] = entryID.ReplaceAllString(texts[i], "the change")
			trees[i] = dumpFs(t, fsys)
		}
		if texts[0] != texts[1] {
			t.Fatalf("seed %d: the results differ:\n%s\n--- from one goroutine:\n%s\npayload:\n%s", seed, texts[0], texts[1], payload)
		}
		if !maps.Equal(trees[0], trees[1]) {
			t.Fatalf("seed %d: the trees differ:\n%v\n--- from one goroutine:\n%v", seed, trees[0], trees[1])
		}
	}
}

// entryID is how a result names a history entry, which differs between runs.
var entryID = regexp.MustCompile(`the change [0-9a-f]+ of [-0-9]+ [:0-9]+`)

// copyFs copies every file of src into a new in-memory filesystem.
func copyFs(t *testing.T, src afero.Fs) afero.Fs {
	t.Helper()
	dst := afero.NewMemMapFs()
	afero.Walk(src, "/", func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := afero.ReadFile(src, p)
		if err != nil {
			t.Fatal(err)
		}
		return afero.WriteFile(dst, p, b, fi.Mode())
	})
	return dst
}

// dumpFs is every file of the workspace /ws in fsys with its mode and bytes.
func dumpFs(t *testing.T, fsys afero.Fs) map[string]string {
	t.Helper()
	out := map[string]string{}
	afero.Walk(fsys, "/ws", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := afero.ReadFile(fsys, p)
			out[p] = fmt.Sprintf("%v %q", fi.Mode(), b)
		}
		return err
	})
	return out
}
