package applypatch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
)

// TestNestedRunRecoversEnclosingCommit: X11, X16. A commit in workspace p that writes
// p/sub/a.txt and p/sub/b.txt dies after a.txt; the next run in p/sub, before it does
// anything, recovers p's commit under p's lock (a.txt back to its baseline), says so,
// and only then applies its own payload, on the baseline rather than on half of p's
// commit. The same holds the other way round: a run in p recovers a commit killed in
// p/sub; and a run in p/sub recovers p's commit after p was moved, its journal with it.
func TestNestedRunRecoversEnclosingCommit(t *testing.T) {
	for _, tc := range []struct {
		name, crashed, next string
		move                bool
	}{
		{"enclosing", "", "sub", false},
		{"nested", "sub", "", false},
		{"enclosing moved", "", "sub", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cases := 0
			for k := 1; k < 40 && cases == 0; k++ {
				p := filepath.Join(t.TempDir(), "p")
				sub := filepath.Join(p, "sub")
				os.MkdirAll(sub, 0o755)
				os.WriteFile(filepath.Join(sub, "a.txt"), []byte("a\nkeep\n"), 0o644)
				os.WriteFile(filepath.Join(sub, "b.txt"), []byte("b\n"), 0o644)
				pathIn := func(ws, name string) string {
					rel, _ := filepath.Rel(filepath.Join(p, ws), filepath.Join(sub, name))
					return filepath.ToSlash(rel)
				}
				crash := "*** Begin Patch\n*** Update File: " + pathIn(tc.crashed, "a.txt") + "\n@@\n-a\n+A\n" +
					"*** Update File: " + pathIn(tc.crashed, "b.txt") + "\n@@\n-b\n+B\n*** End Patch\n"
				halted := faultfs.New(afero.NewOsFs(), haltAfter(k))
				applypatch.Apply(context.Background(), halted, crash, &applypatch.Options{Workspace: filepath.Join(p, tc.crashed)})
				a, _ := os.ReadFile(filepath.Join(sub, "a.txt"))
				b, _ := os.ReadFile(filepath.Join(sub, "b.txt"))
				if string(a) != "A\nkeep\n" || string(b) != "b\n" {
					continue // not killed between the two writes
				}
				cases++
				if tc.move {
					moved := p + "2"
					if err := os.Rename(p, moved); err != nil {
						t.Fatal(err)
					}
					p, sub = moved, filepath.Join(moved, "sub")
				}
				next := "*** Begin Patch\n*** Update File: " + pathIn(tc.next, "a.txt") + "\n@@\n-keep\n+kept\n*** End Patch\n"
				res, err := applypatch.Apply(context.Background(), afero.NewOsFs(), next, &applypatch.Options{Workspace: filepath.Join(p, tc.next)})
				if err != nil {
					t.Fatalf("k=%d: the next run: %v", k, err)
				}
				a, _ = os.ReadFile(filepath.Join(sub, "a.txt"))
				b, _ = os.ReadFile(filepath.Join(sub, "b.txt"))
				if string(a) != "a\nkept\n" || string(b) != "b\n" {
					t.Errorf("k=%d: a.txt = %q, b.txt = %q; want the interrupted commit undone, then the next run's edit", k, a, b)
				}
				if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "recovered an interrupted commit") {
					t.Errorf("k=%d: the result does not say it recovered the other workspace's commit: %q", k, notes)
				}
				for _, dir := range []string{p, sub} {
					if names, _ := filepath.Glob(filepath.Join(dir, ".applypatch-journal-*")); len(names) > 0 {
						t.Errorf("k=%d: a journal is left: %v", k, names)
					}
				}
			}
			if cases == 0 {
				t.Fatal("no k stopped the commit between its two writes")
			}
		})
	}
}
