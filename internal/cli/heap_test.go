package cli

import (
	"strings"
	"testing"
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
