package applypatch

import (
	"slices"
	"testing"

	"github.com/applypatch/applypatch/internal/fence"
)

// TestDefaultsAreCopies: F2, T5. Changing what a Default function returned changes
// nothing for the next caller.
func TestDefaultsAreCopies(t *testing.T) {
	f := fence.DefaultForbidden()
	f[0] = "nothing"
	p := fence.DefaultProtected()
	p[0] = "nothing"
	l := defaultLimits()
	l.Payload = 1
	if slices.Contains(fence.DefaultForbidden(), "nothing") || slices.Contains(fence.DefaultProtected(), "nothing") || defaultLimits().Payload == 1 {
		t.Fatal("a Default function returned shared state")
	}
}
