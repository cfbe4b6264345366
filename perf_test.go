package applypatch

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// TestResolveAllocatesSmallMultiple checks PERF3: resolving a 1 MiB file with hunks
// spread through it allocates at most 1.5× the file's size — the baseline, an offset a
// line and the index of the hunks' lines — not a copy of the lines, nor a copy per hunk
// or per pass, nor the derived result, which is built when a commit asks for it. Bytes
// allocated are counted by the runtime, not timed.
func TestResolveAllocatesSmallMultiple(t *testing.T) {
	var file, payload strings.Builder
	payload.WriteString("*** Begin Patch\n*** Update File: big.txt\n")
	for i := 0; file.Len() < 1<<20; i++ {
		fmt.Fprintf(&file, "line %d of a file that is about one mebibyte long\n", i)
		if i%500 == 250 {
			fmt.Fprintf(&payload, "@@\n-line %d of a file that is about one mebibyte long\n+changed %d\n", i, i)
		}
	}
	payload.WriteString("*** End Patch\n")
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/big.txt", []byte(file.String()), 0o644)
	p, err := Parse(payload.String())
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Resolve(context.Background(), fsys, p, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	size := uint64(file.Len())
	if got := after.TotalAlloc - before.TotalAlloc; got > size*3/2 {
		t.Errorf("resolving a %d-byte file allocated %d bytes (%.2f×), want at most 1.5×", size, got, float64(got)/float64(size))
	} else {
		t.Logf("resolving a %d-byte file allocated %d bytes (%.2f×)", size, got, float64(got)/float64(size))
	}
}
