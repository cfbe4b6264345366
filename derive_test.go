package applypatch

import (
	"errors"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
)

// TestApplyOverlap checks the rule for hunks that meet (M2, M3): they may share context
// lines (one hunk's trailing context is the next one's leading context), but two hunks
// never change, or insert into, the same lines, nor insert the same lines at one place (a
// repeat); that is an Overlap naming the earlier hunk. Other insertions at one place keep
// the payload's order.
func TestApplyOverlap(t *testing.T) {
	for _, tc := range []struct {
		name, file, body string
		after            string // "" when the hunks overlap
		hunk, other      int    // the overlapping hunk and the one it meets
	}{
		{name: "adjacent, no shared lines", file: "a\nb\nc\nd\n",
			body: "@@\n-a\n+A\n@@\n-b\n+B\n", after: "A\nB\nc\nd\n"},
		{name: "one shared context line", file: "a\nb\nc\nd\n",
			body: "@@\n-a\n+A\n b\n@@\n b\n-c\n+C\n", after: "A\nb\nC\nd\n"},
		{name: "two shared context lines", file: "a\nb\nc\nd\n",
			body: "@@\n-a\n+A\n b\n c\n@@\n b\n c\n-d\n+D\n", after: "A\nb\nc\nD\n"},
		{name: "hunks given out of file order", file: "a\nb\nc\n",
			body: "@@\n-c\n+C\n@@\n-a\n+A\n", after: "A\nb\nC\n"},
		{name: "both change one line", file: "a\nb\nc\n",
			body: "@@\n-a\n-b\n+X\n@@\n-b\n+Y\n", hunk: 2, other: 1},
		{name: "context of one is changed by the other", file: "a\nb\nc\n",
			body: "@@\n-a\n+A\n b\n@@\n-b\n+B\n c\n", after: "A\nB\nc\n"},
		{name: "the next starts inside the other's trailing context", file: "a\nb\nc\nd\ne\n",
			body: "@@\n-a\n+A\n b\n c\n d\n@@\n c\n-d\n+D\n", after: "A\nb\nc\nD\ne\n"},
		{name: "insertion below an anchor inside the other's context", file: "f\na\nb\nc\n",
			body: "@@\n-f\n+F\n a\n b\n@@ a\n+z\n", after: "F\na\nz\nb\nc\n"},
		{name: "insertion inside a changed range", file: "a\nb\nc\n",
			body: "@@\n-a\n-b\n-c\n+X\n@@ 2\n+new\n", hunk: 2, other: 1},
		{name: "insertion before a changed line, either order", file: "a\nb\nc\n",
			body: "@@\n-b\n+B\n@@ 2\n+new\n", after: "a\nnew\nB\nc\n"},
		{name: "insertion before a changed line", file: "a\nb\nc\n",
			body: "@@ 2\n+new\n@@\n-b\n+B\n", after: "a\nnew\nB\nc\n"},
		{name: "two insertions at one line keep payload order", file: "a\nb\n",
			body: "@@ 2\n+one\n@@ 2\n+two\n", after: "a\none\ntwo\nb\n"},
		{name: "a hunk of context and insertion repeated", file: "a\nb\nc\nd\n",
			body: "@@\n b\n+X\n c\n@@\n b\n+X\n c\n", hunk: 2, other: 1},
		{name: "two insertions that context puts at one place keep payload order", file: "a\nb\nc\nd\n",
			body: "@@\n b\n+X\n c\n@@\n+Y\n c\n d\n", after: "a\nb\nX\nY\nc\nd\n"},
		{name: "an insertion repeated by line hints", file: "a\nb\n",
			body: "@@ 2\n+one\n@@ 2\n+one\n", hunk: 2, other: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(updateBody(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			after, err := applyAll(lines.Split(tc.file), p.Ops[0].Hunks)
			if tc.after != "" {
				if err != nil {
					t.Fatalf("apply: %v", err)
				}
				if after != tc.after {
					t.Errorf("after = %q, want %q", after, tc.after)
				}
				return
			}
			var me *MatchError
			if !errors.As(err, &me) || me.Reason != MatchOverlap {
				t.Fatalf("apply = %q, %v; want an Overlap", after, err)
			}
			if me.Hunk != tc.hunk || me.Other != tc.other {
				t.Errorf("Overlap of hunk %d with hunk %d, want %d with %d", me.Hunk, me.Other, tc.hunk, tc.other)
			}
		})
	}
}
