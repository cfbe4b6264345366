package main

import "testing"

// TestVisible: C1. What the person reads in an elicitation shows every character that a
// terminal would act on or hide: a carriage return that would overwrite the line shown,
// an escape sequence, a bidirectional override in a path, a zero-width space.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"+rm -rf \"$HOME\" \r+echo done\n": "+rm -rf \"$HOME\" ␍+echo done\n",
		"+x\x1b[2K\x1b[1A+y":               "+x␛[2K␛[1A+y",
		"invoice\u202etxt.exe":             "invoice<U+202E>txt.exe",
		"a\u200bb\tc\u0085":                "a<U+200B>b\tc<U+0085>",
		"plain\ntext":                      "plain\ntext",
	} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}
