package applypatch

import (
	"slices"
	"testing"
)

// TestFoldSpellings: F2. Spellings a case-folding filesystem opens as one name fold to
// it; names that differ on every filesystem do not.
func TestFoldSpellings(t *testing.T) {
	same := map[string][]string{
		".git":    {".GIT", ".Git", ".git.", ".git ", ".g\u200cit", "\uff0egit", ".\uff47\uff49\uff54", ".g\u0131t", ".gi\ufefft"},
		".ssh":    {".SSH", ".\u017Fsh", ".s\u017Fh", ".ssh.."},
		".docker": {".doc\u212Aer", ".DOCKER"},
		"straße":  {"STRASSE", "strasse"},
	}
	for name, spellings := range same {
		for _, s := range spellings {
			if foldComponent(s) != foldComponent(name) {
				t.Errorf("%q folds to %q, not to %q's %q", s, foldComponent(s), name, foldComponent(name))
			}
		}
	}
	for _, other := range []string{".gi\u0308t", ".gitx", "git", ".g1t"} {
		if foldComponent(other) == foldComponent(".git") {
			t.Errorf("%q folds to .git", other)
		}
	}
}

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
