package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// editOn resolves and commits one edit on a bench's file, returning the result.
func (b *undoBench) edit(e Edit) (*Result, error) {
	b.t.Helper()
	pr, err := ResolveEdit(context.Background(), b.fsys, e, b.opts)
	if err != nil {
		return nil, err
	}
	return Commit(context.Background(), pr)
}

// An edit keeps every byte it was not asked to change: CRLF line ends, tabs, a
// byte-order mark; the replaced text may start and end inside lines and span several.
func TestEditKeepsTheFile(t *testing.T) {
	const file = "\ufefffunc a() {\r\n\tx := 1\r\n\ty := 2\r\n}\r\n"
	for name, tc := range map[string]struct {
		edit Edit
		want string
	}{
		"in a line":      {Edit{Old: "x := 1", New: "x := 10"}, "\ufefffunc a() {\r\n\tx := 10\r\n\ty := 2\r\n}\r\n"},
		"across lines":   {Edit{Old: "1\n\ty", New: "1\n\tz := 3\n\ty"}, "\ufefffunc a() {\r\n\tx := 1\r\n\tz := 3\r\n\ty := 2\r\n}\r\n"},
		"whole lines":    {Edit{Old: "\ty := 2\n", New: "\ty := 20\n"}, "\ufefffunc a() {\r\n\tx := 1\r\n\ty := 20\r\n}\r\n"},
		"delete a line":  {Edit{Old: "\ty := 2\n", New: ""}, "\ufefffunc a() {\r\n\tx := 1\r\n}\r\n"},
		"insert at top":  {Edit{Insert: true, Line: 0, New: "// doc\n"}, "\ufeff// doc\r\nfunc a() {\r\n\tx := 1\r\n\ty := 2\r\n}\r\n"},
		"insert at end":  {Edit{Insert: true, Line: 4, New: "// end"}, "\ufefffunc a() {\r\n\tx := 1\r\n\ty := 2\r\n}\r\n// end\r\n"},
		"fuzzy, spaces":  {Edit{Old: "    y := 2", New: "\ty := 22"}, "\ufefffunc a() {\r\n\tx := 1\r\n\ty := 22\r\n}\r\n"},
		"insert after 2": {Edit{Insert: true, Line: 2, New: "\tw := 0"}, "\ufefffunc a() {\r\n\tx := 1\r\n\tw := 0\r\n\ty := 2\r\n}\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"a.go": file})
			tc.edit.Path = "a.go"
			res, err := b.edit(tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.tree()["a.go"]; got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if fuzzy := strings.Contains(res.Text(), "whitespace"); fuzzy != strings.HasPrefix(name, "fuzzy") {
				t.Errorf("fuzzy reported %v:\n%s", fuzzy, res.Text())
			}
		})
	}
}

// An old text that occurs at several places, or nowhere, is refused with where it
// occurs, and nothing is written.
func TestEditRefusals(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.go": "x := 1\ny := 1\nx := 1\n"})
	for _, tc := range []struct {
		edit   Edit
		reason MatchReason
		text   string
	}{
		{Edit{Old: "x := 1", New: "x"}, MatchAmbiguous, "occurs at 2 places, starting on lines 1, 3"},
		{Edit{Old: ":= 1", New: "x"}, MatchAmbiguous, "occurs at 3 places"},
		{Edit{Old: "z := 1", New: "x"}, MatchNotFound, "not in the file"},
		{Edit{Old: "", New: "x"}, MatchNotFound, "old text is empty"},
		{Edit{Insert: true, Line: 9, New: "x"}, MatchNotFound, "the file has 3 lines"},
	} {
		tc.edit.Path = "a.go"
		_, err := b.edit(tc.edit)
		if !errors.Is(err, &MatchError{Reason: tc.reason}) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%+v: %v, want %v saying %q", tc.edit, err, tc.reason, tc.text)
		}
	}
	if got := b.tree()["a.go"]; got != "x := 1\ny := 1\nx := 1\n" {
		t.Errorf("a refused edit wrote %q", got)
	}
	b.write("a\n.go", "x\n") // P14: a path with a control character is refused, even where it exists
	if _, err := b.edit(Edit{Path: "a\n.go", Old: "x", New: "y"}); !errors.As(err, new(*ParseError)) || !strings.Contains(err.Error(), "the edit's path") {
		t.Errorf("an edit of a path holding a newline: %v, want a ParseError naming the edit's path", err)
	}
	if got := b.tree()["a\n.go"]; got != "x\n" {
		t.Errorf("the refused edit wrote %q", got)
	}
}

// TestEditSeesTheFinalLineBreak: M1, M2. Old text is looked for in the file as it is,
// its last line break included: "}\n" that occurs twice, once at the end, is ambiguous
// rather than the first one edited, and "\n" → "\n" on a file of one line ending in a
// space changes nothing, where a fuzzy match would have trimmed the space. An Old at
// the end of a file without a final line break is replaced as written.
func TestEditSeesTheFinalLineBreak(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.go": "x()\n}\nfunc y() {\n}\n", "sp.txt": " \n", "end.txt": "a\nb"})
	_, err := b.edit(Edit{Path: "a.go", Old: "}\n", New: "};\n"})
	if !errors.Is(err, &MatchError{Reason: MatchAmbiguous}) || !strings.Contains(err.Error(), "lines 2, 4") {
		t.Errorf("an old text found twice, once with the final line break: %v", err)
	}
	if _, err := b.edit(Edit{Path: "sp.txt", Old: "\n", New: "\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.edit(Edit{Path: "end.txt", Old: "b", New: "c\n"}); err != nil {
		t.Fatal(err)
	}
	tree := b.tree()
	for name, want := range map[string]string{"a.go": "x()\n}\nfunc y() {\n}\n", "sp.txt": " \n", "end.txt": "a\nc\n"} {
		if tree[name] != want {
			t.Errorf("%s = %q, want %q", name, tree[name], want)
		}
	}
}

// An edit is an ordinary commit: recorded, and undone byte for byte.
func TestEditUndo(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.go": "a\r\nb\r\n"})
	if _, err := b.edit(Edit{Path: "a.go", Old: "b", New: "B"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.revert(true); err != nil {
		t.Fatal(err)
	}
	if got := b.tree()["a.go"]; got != "a\r\nb\r\n" {
		t.Errorf("after undo %q", got)
	}
}

// FuzzEdit: an edit never panics, and on an LF file that ends with a newline, an old
// text found once as written is replaced exactly as strings.Replace would, and nothing
// else of the file changes.
func FuzzEdit(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("x := 1\n\ty := 2\n", "1\n\ty", "1\n\tz")
	f.Add("a\n\nb\n", "\n", "")
	f.Fuzz(func(t *testing.T, file, old, new string) {
		if strings.ContainsRune(file+old+new, '\r') || !strings.HasSuffix(file, "\n") || strings.Count(file, "\n") > 200 {
			return
		}
		b := newUndoBench(t, map[string]string{"f.txt": file})
		_, err := b.edit(Edit{Path: "f.txt", Old: old, New: new})
		got := b.tree()["f.txt"]
		if err != nil {
			if got != file {
				t.Fatalf("a refused edit wrote %q", got)
			}
			return
		}
		// The expected bytes are the file's bytes edited as text: that holds for a file in
		// UTF-8 only (one in UTF-16 is edited as the text it decodes to, T3).
		if utf8.ValidString(file) && strings.Count(file, old) == 1 && !strings.Contains(file[strings.Index(file, old)+1:], old) {
			want := strings.Replace(file, old, new, 1)
			if !strings.HasSuffix(want, "\n") {
				want += "\n" // every line the edit writes ends with a line break
			}
			if got != want && !(strings.HasSuffix(old, "\n") && !strings.HasSuffix(new, "\n")) {
				t.Fatalf("edit %q -> %q on %q: got %q, want %q", old, new, file, got, want)
			}
		}
	})
}

// TestEditRemovesLastLines: T4. Old text that ends with the file's last line break,
// replaced by nothing, removes those lines whole: no empty line is left in their place,
// and all of a file's lines removed leave it empty; in a CRLF file too.
func TestEditRemovesLastLines(t *testing.T) {
	for _, tc := range []struct{ file, old, want string }{
		{"a\nb\nc\n", "c\n", "a\nb\n"},
		{"a\nb\nc\n", "b\nc\n", "a\n"},
		{"a\nb\nc\n", "a\nb\nc\n", ""},
		{"a\r\nb\r\nc\r\n", "c\r\n", "a\r\nb\r\n"},
		{"a\nb\nc\n", "c", "a\nb\n\n"}, // the text of the line only: its line break stays
		{"a\nb\nc\n", "b\n", "a\nc\n"},
	} {
		b := newUndoBench(t, map[string]string{"f.txt": tc.file})
		if _, err := b.edit(Edit{Path: "f.txt", Old: tc.old, New: ""}); err != nil {
			t.Fatalf("%q without %q: %v", tc.file, tc.old, err)
		}
		if got := b.tree()["f.txt"]; got != tc.want {
			t.Errorf("%q without %q = %q, want %q", tc.file, tc.old, got, tc.want)
		}
	}
}
