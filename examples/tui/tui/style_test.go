package tui

import "testing"

// TestPrintable: C1. What the review shows of a payload or a file shows every character a
// terminal would act on or hide: control characters as their pictures, and invisible
// formatting characters (a bidirectional override could reorder a path) as U+FFFD.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb":                 "a    b",
		"x\x1b[2Ky\r":          "x␛[2Ky␍",
		"invoice\u202etxt.exe": "invoice\uFFFDtxt.exe",
		"zero\u200bwidth":      "zero\uFFFDwidth",
		"plain":                "plain",
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}
