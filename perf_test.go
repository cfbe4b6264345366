package applypatch

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// TestResolveAllocatesSmallMultiple checks PERF3: resolving a 1 MiB file with a hunk
// every 100 lines (the density of the bigfile benchmark) allocates at most 1.4× the
// file's size — the baseline, an offset a line and the index of the hunks' key lines —
// not a copy of the lines, nor a copy per hunk or per pass (placing a hunk allocates
// neither its old lines nor its set of matches), nor the derived result, which a commit
// streams into the file. Bytes allocated are counted by the runtime, not timed.
func TestResolveAllocatesSmallMultiple(t *testing.T) {
	// The benchmark's Go-like source: one line in four is a closing brace or blank,
	// which every hunk's context holds.
	lines := benchSource(0, 50_000, rand.New(rand.NewPCG(1, 2)), false)
	file := strings.Join(lines, "\n") + "\n"
	var payload strings.Builder
	payload.WriteString("*** Begin Patch\n")
	benchUpdate(&payload, "big.txt", lines, len(lines)/100, false)
	payload.WriteString("*** End Patch\n")
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/big.txt", []byte(file), 0o644)
	p, err := Parse(payload.String())
	if err != nil {
		t.Fatal(err)
	}
	// The counter is the process's: the fewest bytes of three runs leave out what tests
	// running meanwhile allocate.
	got := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Resolve(context.Background(), fsys, p, nil); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got = min(got, after.TotalAlloc-before.TotalAlloc)
	}
	size := uint64(len(file))
	if got > size*14/10 {
		t.Errorf("resolving a %d-byte file allocated %d bytes (%.2f×), want at most 1.4×", size, got, float64(got)/float64(size))
	} else {
		t.Logf("resolving a %d-byte file allocated %d bytes (%.2f×)", size, got, float64(got)/float64(size))
	}
}

// TestUpdateDiffAllocatedOnce checks PERF3 for the result: an Update's written diff is
// sized before it is rendered, headings included, so rendering a 2,000-hunk Update's diff
// allocates it once, not a buffer grown and copied.
func TestUpdateDiffAllocatedOnce(t *testing.T) {
	lines := benchSource(0, 50_000, rand.New(rand.NewPCG(1, 2)), false)
	var payload strings.Builder
	payload.WriteString("*** Begin Patch\n")
	benchUpdate(&payload, "big.txt", lines, 2000, false)
	payload.WriteString("*** End Patch\n")
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/big.txt", []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	pr, err := ResolvePayload(context.Background(), fsys, payload.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := pr.changes[0].fileResult(pr)
	runtime.ReadMemStats(&after)
	if got, size := after.TotalAlloc-before.TotalAlloc, uint64(len(f.Diff)); got > size+16<<10 {
		t.Errorf("rendering a %d-byte diff allocated %d bytes, want the diff once", size, got)
	}
	if want := 2000 * 9; strings.Count(f.Diff, "\n")+1 != want || f.Added != 2000 || f.Removed != 2000 {
		t.Errorf("diff of %d lines (+%d -%d), want %d (+2000 -2000)", strings.Count(f.Diff, "\n")+1, f.Added, f.Removed, want)
	}
}
