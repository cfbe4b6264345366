package cli

import (
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/prefault"
)

// TestHeapForGrowsWithSections: the heap made resident up front follows the payload's
// sections and size, an Add taking less than a section with a file to read (PERF5).
func TestHeapForGrowsWithSections(t *testing.T) {
	payload := func(sections int) string {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n")
		for i := range sections {
			b.WriteString("*** Update File: f" + strings.Repeat("x", i%7) + ".go\n@@\n-a\n+b\n")
		}
		b.WriteString("*** End Patch\n")
		return b.String()
	}
	small, large := heapFor(payload(1000)), heapFor(payload(2000))
	if small < 1000*16<<10 || large < 2*small-len(payload(1000)) {
		t.Errorf("1,000 sections: %d bytes; 2,000: %d; want about 16 KB a section", small, large)
	}
	adds := strings.ReplaceAll(strings.ReplaceAll(payload(1000), "Update File", "Add File"), "@@\n-a\n+b", "+b")
	if n := heapFor(adds); n < 1000*8<<10 || n > small*2/3 {
		t.Errorf("1,000 Adds: %d bytes; want about 8 KB a section, less than Updates take (%d)", n, small)
	}
}

// TestHeapForCountsHeadersAtLineStarts: a section is counted by "*** " at the start of a
// line after the first, however the stars fall in the lines around it (PERF5).
func TestHeapForCountsHeadersAtLineStarts(t *testing.T) {
	const per, add = prefault.HeapPerFile, prefault.HeapPerFile / 2
	for _, tt := range []struct {
		payload string
		extra   int
	}{
		{"*** Begin Patch\n*** Update File: a\n*** End Patch\n", 2 * per},
		{"*** Add File: a\n", 0},
		{"*** Begin Patch\n*** Add File: a\n+x\n*** Add File: b\n+y\n", 2 * add},
		{"x*** Add File: a\n **** Add File: b\n**** c\n***\n*** ", per},
		{"\n*** *** Add File: a\n\n\n*** Add File:", per + add},
		{"+ a *** b\n-*** Delete File: c\n", 0},
	} {
		if got, want := heapFor(tt.payload), 2*len(tt.payload)+tt.extra; got != want {
			t.Errorf("heapFor(%q) = %d, want %d", tt.payload, got, want)
		}
	}
}
