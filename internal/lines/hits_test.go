package lines

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendHits: pieces' hits land on their keys in piece order, after any positions a
// key already holds; a key without hits keeps no list (M1, PERF5: candidates are found
// in file order).
func TestAppendHits(t *testing.T) {
	occ := [][]int32{{1}, nil, nil, nil}
	AppendHits(occ, [][]Hit{
		{{Key: 0, Line: 3}, {Key: 2, Line: 4}},
		nil,
		{{Key: 2, Line: 9}, {Key: 0, Line: 10}, {Key: 1, Line: 11}},
	})
	want := [][]int32{{1, 3, 10}, {11}, {4, 9}, nil}
	if diff := cmp.Diff(want, occ); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}
