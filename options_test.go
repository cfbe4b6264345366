package applypatch

import (
	"slices"
	"testing"
)

// TestDefaultsAreCopies: F2, T5. Changing what a Default function returned changes
// nothing for the next caller.
func TestDefaultsAreCopies(t *testing.T) {
	f := defaultForbidden()
	f[0] = "nothing"
	p := defaultProtected()
	p[0] = "nothing"
	l := defaultLimits()
	l.Payload = 1
	if slices.Contains(defaultForbidden(), "nothing") || slices.Contains(defaultProtected(), "nothing") || defaultLimits().Payload == 1 {
		t.Fatal("a Default function returned shared state")
	}
}
