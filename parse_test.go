package applypatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"
)

// ignoreLines compares patches without their payload line numbers, which Format does
// not keep (a heredoc, an Environment ID or an omitted "@@" shift them).
var ignoreLines = cmp.Options{
	cmpopts.IgnoreFields(Operation{}, "Line"),
	cmpopts.IgnoreFields(Hunk{}, "Line"),
}

// TestFormat checks the canonical form on one patch of every shape.
func TestFormat(t *testing.T) {
	p := &Patch{Ops: []Operation{
		{Kind: OpAdd, Path: "new.txt", Lines: []string{"a", ""}},
		{Kind: OpAdd, Path: "empty.txt", Lines: []string{}},
		{Kind: OpDelete, Path: "old.txt"},
		{Kind: OpUpdate, Path: "a.go", MoveTo: "b.go", Hunks: []Hunk{
			{Anchor: "func main", Lines: []Line{{LineContext, "x"}, {LineRemove, "y"}, {LineAdd, "z"}}},
			{Hint: 12, Lines: []Line{{LineAdd, ""}}},
			{Anchor: "007", EOF: true, Lines: []Line{{LineContext, ""}, {LineRemove, "}"}}},
			{Within: []string{"class A:", "    def f(self):"}, Anchor: "        if x:", Hint: 9, Lines: []Line{{LineRemove, "            y"}}},
			{Lines: []Line{{LineContext, "*** End of File"}, {LineRemove, "@@ x"}}},
		}},
	}}
	want := `*** Begin Patch
*** Add File: new.txt
+a
+
*** Add File: empty.txt
*** Delete File: old.txt
*** Update File: a.go
*** Move to: b.go
@@ func main
 x
-y
+z
@@ 12
+
@@ 007
 
-}
*** End of File
@@ class A:
@@     def f(self):
@@         if x:
@@ 9
-            y
@@
 *** End of File
-@@ x
*** End Patch
`
	got := Format(p)
	if got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	back, err := Parse(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, back, ignoreLines); diff != "" {
		t.Errorf("Parse(Format(p)) differs (-p +parsed):\n%s", diff)
	}
}

// TestParseLines checks the payload line numbers kept on operations and hunks: they
// count the payload as sent, wrapper and CRLF included (P12).
func TestParseLines(t *testing.T) {
	payload := "cat <<'EOF'\r\n*** Begin Patch\r\n*** Environment ID: x\r\n*** Add File: a\r\n+1\r\n" +
		"*** Update File: b\r\n x\r\n-y\r\n@@ z\r\n+w\r\n*** End Patch\r\nEOF\r\n"
	p, err := Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	got := []int{p.Ops[0].Line, p.Ops[1].Line, p.Ops[1].Hunks[0].Line, p.Ops[1].Hunks[1].Line}
	if diff := cmp.Diff([]int{4, 6, 7, 9}, got); diff != "" {
		t.Errorf("lines of Add, Update, first hunk, second hunk (-want +got):\n%s", diff)
	}
}

// payloadSeeds returns the payloads of the testdata scripts (every archived file that
// opens an envelope or a heredoc), the placement table's payloads, and, when the
// environment names a directory of conformance cases in APPLYPATCH_CONFORMANCE, their
// patch.txt files.
func payloadSeeds(t testing.TB) []string {
	var seeds []string
	scripts, _ := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	for _, name := range scripts {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if s := string(f.Data); strings.Contains(s, "*** ") {
				seeds = append(seeds, s)
			}
		}
	}
	for _, tc := range placeCases {
		seeds = append(seeds, updateBody(tc.body))
	}
	if dir := os.Getenv("APPLYPATCH_CONFORMANCE"); dir != "" {
		cases, _ := filepath.Glob(filepath.Join(dir, "*", "*", "patch.txt"))
		for _, name := range cases {
			b, err := os.ReadFile(name)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			seeds = append(seeds, string(b))
		}
	}
	return seeds
}

// FuzzParse checks that Parse never panics, that every error is a *ParseError whose
// Line and Text point at a line of the payload (P12), and that every payload that
// parses survives Format: Parse(Format(p)) equals p, payload lines aside, and Format is
// then stable (P13).
func FuzzParse(f *testing.F) {
	for _, s := range payloadSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		p, err := Parse(payload)
		if err != nil {
			checkParseError(t, payload, err)
			return
		}
		text := Format(p)
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(Format(p)) fails: %v\npayload: %q\nformatted: %q", err, payload, text)
		}
		if diff := cmp.Diff(p, back, ignoreLines); diff != "" {
			t.Fatalf("Parse(Format(p)) differs (-p +back):\n%s\npayload: %q\nformatted: %q", diff, payload, text)
		}
		if again := Format(back); again != text {
			t.Fatalf("Format is not stable:\n%q\n%q", text, again)
		}
	})
}

// checkParseError checks that err is a *ParseError naming a payload line by its number
// and exact text (the CRs ending it aside).
func checkParseError(t *testing.T, payload string, err error) {
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Parse error %v is a %T, not a *ParseError", err, err)
	}
	if pe.Msg == "" {
		t.Fatalf("ParseError without a message: %+v", pe)
	}
	if pe.Line == 0 {
		if pe.Text != "" {
			t.Fatalf("ParseError names text %q but no line", pe.Text)
		}
		return
	}
	lines := strings.Split(payload, "\n")
	if pe.Line > len(lines) {
		t.Fatalf("ParseError line %d of a %d-line payload", pe.Line, len(lines))
	}
	// The CRs that end a line are its line ending (a CR CR LF payload's two among them),
	// which a quote leaves out.
	line := lines[pe.Line-1]
	if !strings.HasPrefix(line, pe.Text) || strings.TrimRight(line[len(pe.Text):], "\r") != "" {
		t.Fatalf("ParseError line %d quotes %q, but the line is %q", pe.Line, pe.Text, line)
	}
}
