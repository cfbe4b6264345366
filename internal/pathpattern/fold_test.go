package pathpattern

import "testing"

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
			if Fold(s) != Fold(name) {
				t.Errorf("%q folds to %q, not to %q's %q", s, Fold(s), name, Fold(name))
			}
		}
	}
	for _, other := range []string{".gi\u0308t", ".gitx", "git", ".g1t"} {
		if Fold(other) == Fold(".git") {
			t.Errorf("%q folds to .git", other)
		}
	}
}
