package lines

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitText checks that every terminator ends a line and is remembered per line
// (T2), that a final terminator starts no extra line, and that inserted lines take the
// style of the first terminator that is LF or CRLF (a lone CR's only in a file with no LF).
func TestSplitText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		lines []string
		eols  []EOL
		style EOL
	}{
		{"empty", "", []string{}, []EOL{}, EOLLF},
		{"one line without newline", "a", []string{"a"}, []EOL{EOLNone}, EOLLF},
		{"LF", "a\nb\n", []string{"a", "b"}, []EOL{EOLLF, EOLLF}, EOLLF},
		{"LF without final newline", "a\nb", []string{"a", "b"}, []EOL{EOLLF, EOLNone}, EOLLF},
		{"CRLF", "a\r\nb\r\n", []string{"a", "b"}, []EOL{EOLCRLF, EOLCRLF}, EOLCRLF},
		{"CR", "a\rb\r", []string{"a", "b"}, []EOL{EOLCR, EOLCR}, EOLCR},
		{"mixed, first CRLF", "a\r\nb\nc\rd", []string{"a", "b", "c", "d"}, []EOL{EOLCRLF, EOLLF, EOLCR, EOLNone}, EOLCRLF},
		{"mixed, first LF", "a\nb\r\n", []string{"a", "b"}, []EOL{EOLLF, EOLCRLF}, EOLLF},
		{"CR then LF is one CRLF", "\r\n", []string{""}, []EOL{EOLCRLF}, EOLCRLF},
		{"LF then CR is two lines", "\n\r", []string{"", ""}, []EOL{EOLLF, EOLCR}, EOLLF},
		{"blank lines", "\n\n", []string{"", ""}, []EOL{EOLLF, EOLLF}, EOLLF},
		{"final blank line", "a\n\n", []string{"a", ""}, []EOL{EOLLF, EOLLF}, EOLLF},
		{"CR in the middle of CRLF file", "a\r\nb\rc\r\n", []string{"a", "b", "c"}, []EOL{EOLCRLF, EOLCR, EOLCRLF}, EOLCRLF},
		{"a stray CR before the first CRLF", "foo\r\r\nbar\r\n", []string{"foo", "", "bar"}, []EOL{EOLCR, EOLCRLF, EOLCRLF}, EOLCRLF},
		{"a lone CR first, then LF", "a\rb\nc\n", []string{"a", "b", "c"}, []EOL{EOLCR, EOLLF, EOLLF}, EOLLF},
		{"CR only, without final newline", "a\rb", []string{"a", "b"}, []EOL{EOLCR, EOLNone}, EOLCR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Split(tc.in)
			if diff := cmp.Diff(tc.lines, got.Strings()); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.eols, eols(got)); diff != "" {
				t.Errorf("terminators (-want +got):\n%s", diff)
			}
			if got.Style != tc.style {
				t.Errorf("style = %v, want %v", got.Style, tc.style)
			}
			if back := join(got); back != tc.in {
				t.Errorf("joining the lines with their own terminators gives %q, want %q", back, tc.in)
			}
		})
	}
}

// join writes lines back with their own terminators: splitText loses nothing.
func join(t *Text) string {
	var s string
	for i := range t.Count() {
		s += t.Line(i) + EOLBytes[t.EOL(i)]
	}
	return s
}

// eols lists every line's terminator.
func eols(t *Text) []EOL {
	out := make([]EOL, t.Count())
	for i := range out {
		out[i] = t.EOL(i)
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
		got := Split(s)
		if back := join(got); back != s {
			t.Fatalf("splitText(%q) joins back to %q", s, back)
		}
		for i, l := range got.Strings() {
			for _, c := range []byte(l) {
				if c == '\n' || c == '\r' {
					t.Fatalf("line %d %q holds a terminator", i, l)
				}
			}
			if got.EOL(i) == EOLNone && i != got.Count()-1 {
				t.Fatalf("line %d has no terminator but is not the last", i)
			}
		}
	})
}

// TestDecodeBinary checks the T1 probe: a NUL in the first 8192 bytes is binary, one
// after them is not looked for.
func TestDecodeBinary(t *testing.T) {
	head := append([]byte("text"), 0)
	if _, _, err := Decode(head, nil, ""); err != ErrBinary {
		t.Errorf("decode(NUL at byte 4) = %v, want errBinary", err)
	}
	late := make([]byte, BinaryProbe+1)
	for i := range late {
		late[i] = 'a'
	}
	late[BinaryProbe] = 0
	if _, _, err := Decode(late, nil, ""); err != nil {
		t.Errorf("decode(NUL at byte %d) = %v, want text", BinaryProbe, err)
	}
	late[BinaryProbe-1] = 0
	if _, _, err := Decode(late, nil, ""); err != ErrBinary {
		t.Errorf("decode(NUL at byte %d) = %v, want errBinary", BinaryProbe-1, err)
	}
}

// TestNonASCII (M1: the punctuation pass folds only what it finds outside ASCII): the
// first byte outside ASCII is found wherever it falls against the eight bytes looked at
// at once, and none in ASCII text.
func TestNonASCII(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", -1},
		{"plain", -1},
		{"eight by", -1},
		{"sixteen bytes ok", -1},
		{"\u00e9", 0},
		{"seven b\u00e9", 7},
		{"eight by\u00e9", 8},
		{"a longer line, then \u201cquotes\u201d", 20},
		{"\x80", 0},
	} {
		if got := NonASCII(tc.s); got != tc.want {
			t.Errorf("NonASCII(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}
