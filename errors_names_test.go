package applypatch

import (
	"fmt"
	"testing"

	"github.com/applypatch/applypatch/internal/match"
)

// TestReasonsPrintByName: every exported reason prints as its constant's name, and a
// value no constant names prints with its type and number, so a log line never says
// "reason=1".
func TestReasonsPrintByName(t *testing.T) {
	for _, tc := range []struct {
		v    fmt.Stringer
		want string
	}{
		{FileMissing, "FileMissing"},
		{FileTooLarge, "FileTooLarge"},
		{ConflictChanged, "ConflictChanged"},
		{ConflictNotInPatch, "ConflictNotInPatch"},
		{MatchNotFound, "MatchNotFound"},
		{MatchOverlap, "MatchOverlap"},
		{coarse[match.AboveAnchor], "MatchNotFound"},
		{coarse[match.AnchorAmbiguous], "MatchAmbiguous"},
		{FileReason(99), "FileReason(99)"},
		{ConflictReason(0), "ConflictReason(0)"},
	} {
		if got := fmt.Sprint(tc.v); got != tc.want {
			t.Errorf("%#v prints %q, want %q", tc.v, got, tc.want)
		}
	}
	for r := FileMissing; r <= FileTooLarge; r++ {
		if _, ok := fileReasonNames[r]; !ok {
			t.Errorf("FileReason %d has no name", int(r))
		}
	}
	for r := ConflictChanged; r <= ConflictNotInPatch; r++ {
		if _, ok := conflictReasonNames[r]; !ok {
			t.Errorf("ConflictReason %d has no name", int(r))
		}
	}
	for r := MatchNotFound; r <= MatchOverlap; r++ {
		if _, ok := matchReasonNames[r]; !ok {
			t.Errorf("MatchReason %d has no name", int(r))
		}
	}
}

func ExampleMatchReason_String() {
	fmt.Printf("reason=%v\n", MatchAmbiguous)
	// Output: reason=MatchAmbiguous
}
