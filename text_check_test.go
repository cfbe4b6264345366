package applypatch

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// TestFindTextFault: the first byte no text file holds (not UTF-8, or a NUL) is found
// with its line and position; U+FFFD written out is text.
func TestFindTextFault(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want *textFault
	}{
		{"a\nb\n", nil},
		{"a\n\uFFFD\n", nil},
		{"\xff", &textFault{line: 1, text: "\xff", col: 1}},
		{"ab\ncd\xe9f\ngh\n", &textFault{line: 2, text: "cd\xe9f", col: 3}},
		{"x\ny\nz\xc3", &textFault{line: 3, text: "z\xc3", col: 2}},
		{"ok\na\x00b\xff\n", &textFault{line: 2, text: "a\x00b\xff", col: 2, nul: true}},
	} {
		if got := findTextFault(tc.s); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("findTextFault(%q) = %+v, want %+v", tc.s, got, tc.want)
		}
	}
}

// TestNotTextRefused: T1, T3, P14. What a change writes is UTF-8 text whatever way it
// arrives: a patch built in Go, an edit and a person's revision holding a byte that is
// not UTF-8, or a NUL, are refused, naming where, and the file is untouched.
func TestNotTextRefused(t *testing.T) {
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
		{Ops: []Operation{{Kind: OpAdd, Path: "new.txt", Lines: []string{"ok", "a\x00"}}}},
		{Ops: []Operation{{Kind: OpUpdate, Path: "menu.txt", Hunks: []Hunk{{Anchor: "caf\xe9", Lines: []Line{{Kind: LineRemove, Text: "cafe"}, {Kind: LineAdd, Text: "café"}}}}}}},
	}
	for i, p := range built {
		var pe *ParseError
		if _, err := Resolve(ctx, fsys, p, opts); !errors.As(err, &pe) || !strings.Contains(err.Error(), "line 2 of its content") && !strings.Contains(err.Error(), "hunk 1") {
			t.Errorf("built patch %d: %v, want a *ParseError saying which line is not text", i, err)
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
	for text, want := range map[string]string{
		"ok\ncaf\xe9\n": "Line 2 of the text: byte 4 of the line is not valid UTF-8",
		"ok\n\x00\n":    "Line 2 of the text: byte 1 of the line is a NUL",
	} {
		err = rev.Adopt(text, DiscardFeedback)
		var re *ReviewError
		if !errors.As(err, &re) || re.Reason != ReviewRefused || !strings.Contains(err.Error(), want) {
			t.Errorf("Adopt(%q): %v, want a refusal saying %q", text, err, want)
		}
	}
	untouched(t)
}
