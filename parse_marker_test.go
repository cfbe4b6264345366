package applypatch

import "testing"

// P6: inside an Update body a marker tolerates trailing spaces and tabs, and nothing
// before it: an indented "*** " or "@@" line, or one that only starts like a marker, is
// no marker (and is read as a context or a bad line by the body's rules).
func TestUpdateMarkerTrailingBlanksOnly(t *testing.T) {
	for text, want := range map[string]string{
		"@@":                      "@@",
		"@@ func f() \t ":         "@@ func f()",
		"*** End of File\t":       "*** End of File",
		"*** Update File: a.go  ": "*** Update File: a.go",
		"*** End Patch \t \t":     "*** End Patch",
		" @@":                     "",
		"\t*** End of File":       "",
		"**** not a marker":       "",
		"***no space":             "",
		"@":                       "",
		"":                        "",
		"*":                       "",
		"+*** added line":         "",
		"-@@ removed line":        "",
	} {
		if got := updateMarker(text); got != want {
			t.Errorf("updateMarker(%q) = %q, want %q", text, got, want)
		}
	}
}
