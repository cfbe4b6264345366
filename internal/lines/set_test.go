package lines

import (
	"fmt"
	"testing"
)

// TestLineSetNumbersWantedLines: the line index's table finds every line it was given
// and no other, however many share a hash slot or pass its filter.
func TestLineSetNumbersWantedLines(t *testing.T) {
	ls := NewSet(3) // grows past its first size
	var keys []string
	for i := range 5000 {
		k := fmt.Sprint("k", i*7)
		if got := ls.Add(k); got != i {
			t.Fatalf("add(%q) = %d, want %d", k, got, i)
		}
		keys = append(keys, k)
	}
	if got := ls.Add("k7"); got != 1 {
		t.Fatalf("adding a key again numbered it %d, want 1", got)
	}
	for i, k := range keys {
		if got := ls.Find(k); got != i {
			t.Fatalf("find(%q) = %d, want %d", k, got, i)
		}
	}
	for i := range 50000 {
		if i%7 != 0 || i >= 35000 {
			if got := ls.Find(fmt.Sprint("k", i)); got != -1 {
				t.Fatalf("find(k%d) = %d, want -1", i, got)
			}
		}
	}
	if ls.Find("") != -1 {
		t.Fatal("the empty line was found in a set without it")
	}
}
