package applypatch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitText checks that every terminator ends a line and is remembered per line
// (T2), that a final terminator starts no extra line, and that inserted lines take the
// first terminator's style.
func TestSplitText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		lines []string
		eols  []eol
		style eol
	}{
		{"empty", "", []string{}, []eol{}, eolLF},
		{"one line without newline", "a", []string{"a"}, []eol{eolNone}, eolLF},
		{"LF", "a\nb\n", []string{"a", "b"}, []eol{eolLF, eolLF}, eolLF},
		{"LF without final newline", "a\nb", []string{"a", "b"}, []eol{eolLF, eolNone}, eolLF},
		{"CRLF", "a\r\nb\r\n", []string{"a", "b"}, []eol{eolCRLF, eolCRLF}, eolCRLF},
		{"CR", "a\rb\r", []string{"a", "b"}, []eol{eolCR, eolCR}, eolCR},
		{"mixed, first CRLF", "a\r\nb\nc\rd", []string{"a", "b", "c", "d"}, []eol{eolCRLF, eolLF, eolCR, eolNone}, eolCRLF},
		{"mixed, first LF", "a\nb\r\n", []string{"a", "b"}, []eol{eolLF, eolCRLF}, eolLF},
		{"CR then LF is one CRLF", "\r\n", []string{""}, []eol{eolCRLF}, eolCRLF},
		{"LF then CR is two lines", "\n\r", []string{"", ""}, []eol{eolLF, eolCR}, eolLF},
		{"blank lines", "\n\n", []string{"", ""}, []eol{eolLF, eolLF}, eolLF},
		{"final blank line", "a\n\n", []string{"a", ""}, []eol{eolLF, eolLF}, eolLF},
		{"CR in the middle of CRLF file", "a\r\nb\rc\r\n", []string{"a", "b", "c"}, []eol{eolCRLF, eolCR, eolCRLF}, eolCRLF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitText(tc.in)
			if diff := cmp.Diff(tc.lines, got.strings()); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.eols, eols(got)); diff != "" {
				t.Errorf("terminators (-want +got):\n%s", diff)
			}
			if got.style != tc.style {
				t.Errorf("style = %v, want %v", got.style, tc.style)
			}
			if back := join(got); back != tc.in {
				t.Errorf("joining the lines with their own terminators gives %q, want %q", back, tc.in)
			}
		})
	}
}

// join writes lines back with their own terminators: splitText loses nothing.
func join(t *text) string {
	var s string
	for i := range t.count() {
		s += t.line(i) + eolBytes[t.eol(i)]
	}
	return s
}

// eols lists every line's terminator.
func eols(t *text) []eol {
	out := make([]eol, t.count())
	for i := range out {
		out[i] = t.eol(i)
	}
	return out
}

// FuzzSplitText checks that splitting never loses a byte and that no line holds a
// terminator.
func FuzzSplitText(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", "a\r\nb\r", "\r\r\n\n", "x\ry\r\nz\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := splitText(s)
		if back := join(got); back != s {
			t.Fatalf("splitText(%q) joins back to %q", s, back)
		}
		for i, l := range got.strings() {
			for _, c := range []byte(l) {
				if c == '\n' || c == '\r' {
					t.Fatalf("line %d %q holds a terminator", i, l)
				}
			}
			if got.eol(i) == eolNone && i != got.count()-1 {
				t.Fatalf("line %d has no terminator but is not the last", i)
			}
		}
	})
}

// TestDecodeBinary checks the T1 probe: a NUL in the first 8192 bytes is binary, one
// after them is not looked for.
func TestDecodeBinary(t *testing.T) {
	head := append([]byte("text"), 0)
	if _, _, err := decode(head, nil, ""); err != errBinary {
		t.Errorf("decode(NUL at byte 4) = %v, want errBinary", err)
	}
	late := make([]byte, binaryProbe+1)
	for i := range late {
		late[i] = 'a'
	}
	late[binaryProbe] = 0
	if _, _, err := decode(late, nil, ""); err != nil {
		t.Errorf("decode(NUL at byte %d) = %v, want text", binaryProbe, err)
	}
	late[binaryProbe-1] = 0
	if _, _, err := decode(late, nil, ""); err != errBinary {
		t.Errorf("decode(NUL at byte %d) = %v, want errBinary", binaryProbe-1, err)
	}
}
