package applypatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/spf13/afero"
)

// R8: derived hunks re-apply to the baseline to give the edited text, whatever the line
// endings, final newline or emptiness of either side: apply(baseline, derive(baseline,
// edited)) == edited, in logical lines, and byte for byte when the edit uses the file's
// own line endings (T2, T4).
func TestHunksFromEditRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, base, edited, want string }{
		{"first line", "a\nb\nc\n", "A\nb\nc\n", "A\nb\nc\n"},
		{"appended last line", "a\nb\n", "a\nb\nc\n", "a\nb\nc\n"},
		{"deleted last line", "a\nb\nc\n", "a\nb\n", "a\nb\n"},
		{"two regions", twelve.file, strings.NewReplacer("two", "2", "eleven", "11").Replace(twelve.file), ""},
		{"CRLF kept", "a\r\nb\r\nc\r\n", "a\nB\nc\n", "a\r\nB\r\nc\r\n"},
		{"no final newline, no phantom hunk", "a\nb", "a\nB", "a\nB\n"},
		{"empty baseline", "", "x\ny\n", "x\ny\n"},
		{"empty edit", "x\ny\n", "", ""},
		{"repeated blocks", "x\nx\nx\nx\nx\nx\nx\nx\nx\n", "x\nx\nx\nx\nx\nx\nx\nX\nx\n", "x\nx\nx\nx\nx\nx\nx\nX\nx\n"},
		{"lone CR", "a\rb\rc\r", "a\rB\rc\r", "a\rB\rc\r"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" && tc.edited != "" {
				want = tc.edited
			}
			got, n, err := roundTrip(tc.base, tc.edited)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("applied = %q, want %q", got, want)
			}
			if tc.name == "two regions" && n != 2 {
				t.Errorf("%d hunks, want 2 independently selectable", n)
			}
		})
	}
}

// roundTrip derives hunks from base to edited and applies them to base.
func roundTrip(base, edited string) (string, int, error) {
	tx := lines.Split(base)
	hs, err := hunksFromEdit(tx, logicalLines(edited))
	if err != nil {
		return "", 0, err
	}
	var sel []placedHunk
	for i, h := range hs {
		if !h.Selected || !h.Revised || h.Line != 0 {
			return "", 0, fmt.Errorf("derived hunk %d: %+v", i+1, h)
		}
		sel = append(sel, placedHunk{h, i + 1})
	}
	if len(sel) == 0 {
		return base, 0, nil
	}
	out, merr := applyHunks(tx, sel)
	if merr != nil {
		return "", 0, merr
	}
	return string(out), len(hs), nil
}

// FuzzAdopt checks that adopting any edit of any file never panics, and that an adopted
// revision applies to the baseline as the edited lines (R8).
func FuzzAdopt(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("x\r\ny\r\n", "x\r\n")
	f.Add("", "new\n")
	f.Add("a\nb", "")
	f.Add("x\nx\nx\nx\nx\nx\nx\nx\n", "x\nx\ny\nx\nx\nx\nx\nx\n")
	f.Add("*** End Patch\n@@\n", "@@ x\n*** End Patch\n")
	f.Add(" \n\t\n", "\n\n\n")
	f.Fuzz(func(t *testing.T, base, edited string) {
		fsys := afero.NewMemMapFs()
		if err := afero.WriteFile(fsys, "/ws/f.txt", []byte(base), 0o644); err != nil {
			t.Fatal(err)
		}
		p := &Patch{Ops: []Operation{{Kind: OpDelete, Path: "f.txt"}}}
		pr, err := Resolve(context.Background(), fsys, p, &Options{Workspace: "/ws"})
		if err != nil {
			t.Skip() // not a text file Resolve accepts
		}
		s := NewSession(pr)
		rev, err := s.Revise(Target{File: 1})
		if err != nil {
			t.Skip()
		}
		if err := rev.Adopt(edited, DiscardFeedback); err != nil {
			var re *ReviewError
			if !errors.As(err, &re) || re.Reason == reviewRevisionInvalid {
				t.Fatalf("Adopt(%q over %q): %v", edited, base, err)
			}
			return
		}
		res, err := s.Submit(context.Background())
		if err != nil {
			t.Fatalf("Submit: %v (%s)", err, res.Text())
		}
		// The file is compared as text: one in UTF-16 is re-encoded, so its bytes are
		// not the edited text's (T3).
		raw, _ := afero.ReadFile(fsys, "/ws/f.txt")
		got, _, derr := lines.Decode(raw, nil, "")
		if derr != nil {
			t.Fatalf("the result %q cannot be read back: %v", raw, derr)
		}
		if !slices.Equal(logicalLines(got), logicalLines(edited)) {
			t.Fatalf("file %q, edited %q", raw, edited)
		}
	})
}

// R8: a selected Delete of an empty file has nothing to edit, and says so rather than
// asking to select something; an unknown hunk is told apart from an unknown file.
func TestReviseEmptyAndUnknownTargets(t *testing.T) {
	f := newFixture(t, map[string]string{"e.txt": ""}, patch("*** Delete File: e.txt"))
	if _, err := f.s.Revise(Target{File: 1}); !errors.Is(err, &ReviewError{Reason: reviewNothingToEdit}) ||
		!strings.Contains(err.Error(), "empty on both sides") {
		t.Errorf("revise an empty Delete: %v", err)
	}
	if _, err := f.s.Revise(Target{File: 2}); err == nil || !strings.Contains(err.Error(), "the patch has 1 operation") {
		t.Errorf("unknown file: %v", err)
	}
	if _, err := f.s.Revise(Target{File: 1, Hunk: -1}); err == nil || !strings.Contains(err.Error(), "hunks count from 1") {
		t.Errorf("unknown hunk: %v", err)
	}
}

// R8: a kept hunk re-selected after a revision that changed its lines no longer applies;
// submitting says so to the reviewer (deselect it or revise again), names the kept hunk,
// and the review stays open.
func TestReselectedHunkClashesWithRevision(t *testing.T) {
	f := newFixture(t, map[string]string{"one.txt": twelve.file}, twelve.payload)
	f.must(f.s.Select(Target{1, 2}, false, nil))
	f.must(f.revise(Target{File: 1}, strings.Replace(twelve.file, "eleven", "elf", 1), nil))
	f.must(f.s.Select(Target{File: 1}, true, DiscardFeedback))
	_, err := f.s.Submit(context.Background())
	var me *MatchError
	if !errors.As(err, &me) || me.Reason != MatchOverlap || !me.Revision || me.Hunk != 2 {
		t.Fatalf("err = %v, want an Overlap on the kept hunk 2 against the revision", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "no longer applies on top of the revision of this file") ||
		!strings.Contains(msg, "deselect it, or revise the file again") {
		t.Errorf("message: %s", msg)
	}
	if f.s.View().State == StateSettled || f.read("one.txt") != twelve.file {
		t.Error("the review settled or wrote, want it open and the file untouched")
	}
}
