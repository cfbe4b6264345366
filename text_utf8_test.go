package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// TestNotUTF8: the first byte that is not UTF-8 is found with its line and position;
// U+FFFD written out is valid text, not such a byte.
func TestNotUTF8(t *testing.T) {
	for _, tc := range []struct {
		s         string
		line, col int
		text      string
	}{
		{"a\nb\n", 0, 0, ""},
		{"a\n\uFFFD\n", 0, 0, ""},
		{"\xff", 1, 1, "\xff"},
		{"ab\ncd\xe9f\ngh\n", 2, 3, "cd\xe9f"},
		{"x\ny\nz\xc3", 3, 2, "z\xc3"},
	} {
		line, text, col := notUTF8(tc.s)
		if line != tc.line || col != tc.col || text != tc.text {
			t.Errorf("notUTF8(%q) = %d, %q, %d; want %d, %q, %d", tc.s, line, text, col, tc.line, tc.text, tc.col)
		}
	}
}

// TestTextNotUTF8Refused: T3, P14. What a change writes is UTF-8 text whatever way it
// arrives: a patch built in Go, an edit and a person's revision holding a byte that is
// not UTF-8 are refused, naming where, and the file is untouched.
func TestTextNotUTF8Refused(t *testing.T) {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/menu.txt", []byte("cafe\n"), 0o644)
	opts := &Options{Workspace: "/ws"}
	untouched := func(t *testing.T) {
		t.Helper()
		if b, _ := afero.ReadFile(fsys, "/ws/menu.txt"); string(b) != "cafe\n" {
			t.Fatalf("menu.txt = %q", b)
		}
	}
	built := []*Patch{
		{Ops: []Operation{{Kind: OpUpdate, Path: "menu.txt", Hunks: []Hunk{{Lines: []Line{{Kind: LineRemove, Text: "cafe"}, {Kind: LineAdd, Text: "caf\xe9"}}}}}}},
		{Ops: []Operation{{Kind: OpAdd, Path: "new.txt", Lines: []string{"ok", "\xff"}}}},
		{Ops: []Operation{{Kind: OpUpdate, Path: "menu.txt", Hunks: []Hunk{{Anchor: "caf\xe9", Lines: []Line{{Kind: LineRemove, Text: "cafe"}, {Kind: LineAdd, Text: "café"}}}}}}},
	}
	for i, p := range built {
		var pe *ParseError
		if _, err := Resolve(ctx, fsys, p, opts); !errors.As(err, &pe) || !strings.Contains(err.Error(), "is not valid UTF-8") {
			t.Errorf("built patch %d: %v, want a *ParseError saying which line is not UTF-8", i, err)
		}
		untouched(t)
	}

	_, err := ResolveEdit(ctx, fsys, Edit{Path: "menu.txt", Old: "cafe", New: "caf\xe9"}, opts)
	if !strings.Contains(err.Error(), "line 1 of the edit's new text: byte 4 of the line is not valid UTF-8") {
		t.Errorf("edit: %v", err)
	}
	untouched(t)

	pr, err := Resolve(ctx, fsys, &Patch{Ops: []Operation{{Kind: OpDelete, Path: "menu.txt"}}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(pr)
	rev, err := s.Revise(Target{File: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = rev.Adopt("ok\ncaf\xe9\n", DiscardFeedback)
	var re *ReviewError
	if !errors.As(err, &re) || re.Reason != ReviewRefused || !strings.Contains(err.Error(), "Byte 4 of line 2 of the text is not valid UTF-8") {
		t.Errorf("Adopt: %v, want a refusal naming line 2", err)
	}
	untouched(t)
}
