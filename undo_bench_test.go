package applypatch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// manyFiles is a workspace of n files of 200 lines and a payload changing one line of each.
func manyFiles(n int) (map[string]string, string) {
	files := map[string]string{}
	var sections []string
	for i := range n {
		var b strings.Builder
		for l := range 200 {
			fmt.Fprintf(&b, "\tx = x*%d + %d // f%d l%d\n", l%8, l, i, l)
		}
		name := fmt.Sprintf("pkg%d/f%d.go", i%40, i)
		files[name] = b.String()
		sections = append(sections, fmt.Sprintf("*** Update File: %s\n@@\n \tx = x*1 + 97 // f%d l97\n-\tx = x*2 + 98 // f%d l98\n+\tx = x*2 + 98 // f%d l98 + 1", name, i, i, i))
	}
	return files, patch(sections...)
}

// BenchmarkCommitHistory measures a 2,000-file commit with and without a history, and
// the undo of it: the record's cost, and an undo's against the commit's (U1, U2).
func BenchmarkCommitHistory(b *testing.B) {
	files, payload := manyFiles(2000)
	setup := func(b *testing.B, history bool) (afero.Fs, *Options) {
		fsys := afero.NewMemMapFs()
		for name, content := range files {
			afero.WriteFile(fsys, "/ws/"+name, []byte(content), 0o644)
		}
		opts := &Options{Workspace: "/ws"}
		if history {
			opts.History = NewHistory(fsys, "/state/history")
		}
		return fsys, opts
	}
	for _, tc := range []struct {
		name          string
		history, undo bool
	}{{"commit", false, false}, {"commit+history", true, false}, {"undo", true, true}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				fsys, opts := setup(b, tc.history)
				if tc.undo {
					Apply(context.Background(), fsys, payload, opts)
				}
				b.StartTimer()
				var err error
				if tc.undo {
					var pr *Proposal
					if pr, err = Undo(context.Background(), fsys, opts); err == nil {
						_, err = Commit(context.Background(), pr)
					}
				} else {
					_, err = Apply(context.Background(), fsys, payload, opts)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
