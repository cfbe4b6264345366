package applypatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/rootfs"
)

// deepPayload returns K Adds under a directory depth levels deep.
func deepPayload(depth, k int) string {
	dir := strings.Repeat("a/", depth)
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range k {
		fmt.Fprintf(&b, "*** Add File: %sf%d.txt\n+hi\n", dir, i)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestDeepPathsLookups: PERF4. Classifying K Adds 2,000 directories deep looks each
// existing parent up once per call, and nothing below the first missing one, so the
// filesystem lookups grow with depth plus K, not depth times K.
func TestDeepPathsLookups(t *testing.T) {
	for _, existing := range []int{0, 300} {
		dir := t.TempDir()
		if existing > 0 {
			if err := os.MkdirAll(filepath.Join(dir, strings.Repeat("a/", existing)), 0o755); err != nil {
				t.Skip("cannot create a deep directory here:", err)
			}
		}
		p, err := Parse(deepPayload(2000, 50))
		if err != nil {
			t.Fatal(err)
		}
		pr := &Proposal{patch: p, fsys: afero.NewOsFs(), opts: Options{Workspace: dir}}
		if err := pr.fence(context.Background()); err != nil {
			t.Fatal(err)
		}
		looked := pr.fenced.Resolver().Lookups()
		if bound := existing + 1 + 50 + 8; looked > bound {
			t.Errorf("%d existing levels: %d lookups, want at most %d", existing, looked, bound)
		}
	}
}

// BenchmarkHostileDeepDirs resolves and commits Adds 2,000 directories deep, at two
// payload sizes, so the growth with the number of Adds shows: in memory, and on the
// operating system's filesystem confined as the CLI confines it, whose kernel walks every
// name it is given.
func BenchmarkHostileDeepDirs(b *testing.B) {
	for _, k := range []int{5, 20} {
		payload := deepPayload(2000, k)
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			for b.Loop() {
				fsys := afero.NewMemMapFs()
				if _, err := Apply(context.Background(), fsys, payload, &Options{Workspace: "/w"}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("os/%d", k), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				ws, err := rootfs.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				opts := &Options{Workspace: dir, WorkspaceFs: ws}
				if _, err := Apply(context.Background(), afero.NewOsFs(), payload, opts); err != nil {
					b.Fatal(err)
				}
				ws.Close()
			}
		})
	}
}
