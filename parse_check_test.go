package applypatch

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/show"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/afero"
)

// TestPathProblem: P14. Control characters (C0, DEL, C1) and invalid UTF-8 are refused;
// every other character, U+FFFD written out included, is not.
func TestPathProblem(t *testing.T) {
	for _, name := range []string{"a\x00b", "a\tb", "a\nb", "a\rb", "a\x1b[2Kb", "a\x7fb", "a\u0085b", "a\u009fb", "a\xffb", "a\xc3"} {
		if pathProblem(name) == "" {
			t.Errorf("pathProblem(%q) accepts it", name)
		}
	}
	for _, name := range []string{"a.txt", "dir/ünï.txt", "a\uFFFDb", "日本/語.go", "a b", "a\u202eb"} {
		if msg := pathProblem(name); msg != "" {
			t.Errorf("pathProblem(%q) = %q, want none", name, msg)
		}
	}
}

// TestShowPath: P14. A plain path is shown as it is; one holding anything a terminal
// would not show faithfully (a bidirectional override, an invisible joiner, surrounding
// white space, invalid UTF-8) is quoted.
func TestShowPath(t *testing.T) {
	for name, want := range map[string]string{
		"src/main.go":       "src/main.go",
		"dir/ünï.txt":       "dir/ünï.txt",
		"lead space.txt":    "lead space.txt",
		"evil\u202etxt.exe": `"evil\u202etxt.exe"`,
		".g\u200cit/x":      `".g\u200cit/x"`,
		" lead":             `" lead"`,
		"a\x1bb":            `"a\x1bb"`,
		"a\xffb":            `"a\xffb"`,
	} {
		if got := show.Path(name); got != want {
			t.Errorf("showPath(%q) = %s, want %s", name, got, want)
		}
	}
}

// TestResolveRefusesGoBuiltPaths: P14. A *Patch built in Go with a control character in
// a path, or with a field Format cannot write faithfully, is refused by Resolve before
// anything is read or written.
func TestResolveRefusesGoBuiltPaths(t *testing.T) {
	fsys := afero.NewMemMapFs()
	for name, p := range map[string]*Patch{
		"newline in path":    {Ops: []Operation{{Kind: OpAdd, Path: "a\n*** Delete File: important.go", Lines: []string{"x"}}}},
		"escape in move":     {Ops: []Operation{{Kind: OpUpdate, Path: "a.txt", MoveTo: "b\x1b.txt"}}},
		"space around path":  {Ops: []Operation{{Kind: OpAdd, Path: " a.txt", Lines: []string{"x"}}}},
		"newline in content": {Ops: []Operation{{Kind: OpAdd, Path: "a.txt", Lines: []string{"x\n*** Add File: b"}}}},
		"anchor reads as hint": {Ops: []Operation{{Kind: OpUpdate, Path: "a.txt",
			Hunks: []Hunk{{Anchor: "12", Lines: []Line{{Kind: LineRemove, Text: "x"}}}}}}},
	} {
		_, err := Resolve(context.Background(), fsys, p, &Options{Workspace: "/"})
		if !errors.As(err, new(*ParseError)) {
			t.Errorf("%s: Resolve error = %v, want a *ParseError", name, err)
		}
	}
	if names, _ := afero.ReadDir(fsys, "/"); len(names) != 0 {
		t.Errorf("Resolve wrote %d names", len(names))
	}
}

// FuzzFormatResolved: P13, P14. For any *Patch built in Go that Resolve's check accepts,
// Parse(Format(p)) equals p, and any other formats as nothing: no Go-built patch formats
// to text that parses as another.
func FuzzFormatResolved(f *testing.F) {
	f.Add(int8(1), "a.txt", "", "x", "", 0, "y")
	f.Add(int8(2), "a.txt", "b.txt", "old", "anchor", 0, "new")
	f.Add(int8(2), "a.txt", "", "old", "", 3, "new\r")
	f.Add(int8(1), "a\n*** Delete File: important.go", "", "x", "", 0, "")
	f.Add(int8(3), "gone.txt", "", "", "", 0, "")
	f.Add(int8(2), "a.txt", "", " *** End Patch", "12", 0, "+x")
	f.Fuzz(func(t *testing.T, kind int8, path, moveTo, old, anchor string, hint int, add string) {
		k, ok := map[int8]OpKind{1: OpAdd, 2: OpUpdate, 3: OpDelete}[kind]
		if !ok {
			k = OpKind(strconv.Itoa(int(kind))) // an unknown kind, which the check refuses
		}
		op := Operation{Kind: k, Path: path, MoveTo: moveTo}
		switch op.Kind {
		case OpAdd:
			op.Lines = strings.Split(add, "\n")
		case OpUpdate:
			op.Hunks = []Hunk{{Anchor: anchor, Hint: hint, Lines: []Line{{Kind: LineRemove, Text: old}, {Kind: LineAdd, Text: add}}}}
		}
		p := &Patch{Ops: []Operation{op}}
		if err := checkPatch(p); err != nil {
			if text := Format(p); text != "" {
				t.Fatalf("a patch the check refuses (%v) formats as %q, not as nothing", err, text)
			}
			return
		}
		back, err := Parse(Format(p))
		if err != nil {
			t.Fatalf("accepted patch does not parse back: %v\n%q", err, Format(p))
		}
		ignore := cmp.Options{cmpopts.IgnoreFields(Operation{}, "Line"), cmpopts.IgnoreFields(Hunk{}, "Line"), cmpopts.EquateEmpty()}
		if diff := cmp.Diff(p, back, ignore); diff != "" {
			t.Fatalf("Parse(Format(p)) differs (-p +back):\n%s", diff)
		}
	})
}

// TestFormatRefusesWhatParseCouldNotGive: P13, P14. Patches built in Go that no payload
// could give (an added line holding a line break and a header, a path holding one, an
// anchor spelt like a line hint, no operations, nil) format as nothing, which Parse
// refuses, rather than as text that reads as another patch.
func TestFormatRefusesWhatParseCouldNotGive(t *testing.T) {
	for name, p := range map[string]*Patch{
		"added line with a header": {Ops: []Operation{{Kind: OpAdd, Path: "a.txt", Lines: []string{"x\n*** Delete File: victim.txt"}}}},
		"path with a line break":   {Ops: []Operation{{Kind: OpAdd, Path: "a\n*** Add File: b.txt", Lines: []string{"x"}}}},
		"anchor spelt as a hint":   {Ops: []Operation{{Kind: OpUpdate, Path: "a.txt", Hunks: []Hunk{{Anchor: "12", Lines: []Line{{Kind: LineRemove, Text: "a"}}}}}}},
		"no operations":            {},
		"nil":                      nil,
	} {
		if text := Format(p); text != "" {
			t.Errorf("%s: Format gave %q", name, text)
		}
	}
}
