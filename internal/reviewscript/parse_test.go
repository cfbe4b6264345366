package reviewscript

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// The review script grammar: every error names the script line.
func TestParse(t *testing.T) {
	files := fstest.MapFS{"dir/edited.txt": {Data: []byte("new content\n")}}
	for _, tc := range []struct {
		name, src, err string
		want           []action
	}{{
		name: "every action",
		src: "# a comment\n\ndeselect a.txt 2   # trailing comment\nselect \"my file.txt\"\n" +
			"feedback * Please \\n rethink\nfeedback a.txt 3 items are off\nfeedback a.txt 3\\\\4 is odd\nrevise b.txt edited.txt\nsubmit\n",
		want: []action{
			{Line: 3, Verb: "deselect", Path: "a.txt", Hunk: 2},
			{Line: 4, Verb: "select", Path: "my file.txt"},
			{Line: 5, Verb: "feedback", Path: "*", Text: "Please \n rethink"},
			{Line: 6, Verb: "feedback", Path: "a.txt", Hunk: 3, Text: "items are off"},
			{Line: 7, Verb: "feedback", Path: "a.txt", Text: `3\4 is odd`},
			{Line: 8, Verb: "revise", Path: "b.txt", Text: "new content\n"},
			{Line: 9, Verb: "submit"},
		},
	}, {
		name: "tabs, a byte-order mark, quoted text, whole-patch numbers",
		src: "\ufeffdeselect\t\"my file.txt\"\nfeedback * 2 things are wrong\nfeedback a.txt \"7 more lines\"\n" +
			"feedback a.txt 1 \"quoted \\\"text\\\"\"\nsubmit\t# done\n",
		want: []action{
			{Line: 1, Verb: "deselect", Path: "my file.txt"},
			{Line: 2, Verb: "feedback", Path: "*", Text: "2 things are wrong"},
			{Line: 3, Verb: "feedback", Path: "a.txt", Text: "7 more lines"},
			{Line: 4, Verb: "feedback", Path: "a.txt", Hunk: 1, Text: `quoted "text"`},
			{Line: 5, Verb: "submit"},
		},
	}, {
		name: "submit may continue",
		src:  "submit\ndeselect a.txt\nreject",
		want: []action{{Line: 1, Verb: "submit"}, {Line: 2, Verb: "deselect", Path: "a.txt"}, {Line: 3, Verb: "reject"}},
	},
		{name: "unknown verb", src: "submit\napprove a.txt\nsubmit", err: "line 2: unknown action \"approve\""},
		{name: "no path", src: "deselect\nsubmit", err: "line 1: deselect needs a PATH"},
		{name: "bad hunk", src: "select a.txt 0\nsubmit", err: "line 1: \"0\" is not a hunk number"},
		{name: "extra operand", src: "deselect a.txt 1 2\nsubmit", err: "line 1: deselect takes no operands"},
		{name: "revise file outside the script's directory", src: "revise a.txt ../x.txt\nsubmit", err: "line 1: revise: cannot read ../x.txt: FILE must be a path relative to the script's directory"},
		{name: "revise absolute file", src: "revise a.txt /tmp/x.txt\nsubmit", err: "FILE must be a path relative to the script's directory"},
		{name: "no text", src: "feedback a.txt\nsubmit", err: "line 1: feedback needs a TEXT"},
		{name: "missing file", src: "revise a.txt nope.txt\nsubmit", err: "line 1: revise: cannot read nope.txt"},
		{name: "after reject", src: "reject\nsubmit", err: "line 2: nothing can follow reject"},
		{name: "no ending", src: "deselect a.txt\n", err: "the last action must be submit or reject"},
		{name: "submit operands", src: "submit now", err: "line 1: submit takes no operands"},
		{name: "quote", src: "select \"a.txt\nsubmit", err: "line 1: select needs a PATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files["dir/review.txt"] = &fstest.MapFile{Data: []byte(tc.src)}
			sc, err := Load(files, "dir/review.txt")
			if tc.err != "" {
				if !errors.As(err, new(*Error)) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, sc.actions); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Parse("s", "revise a.txt b.txt\nsubmit", nil); err == nil || !strings.Contains(err.Error(), "revise is not available") {
		t.Errorf("revise without files: %v", err)
	}
}

// Load names a script that cannot be read, with no line.
func TestLoadMissing(t *testing.T) {
	_, err := Load(fstest.MapFS{}, "review.txt")
	var se *Error
	if !errors.As(err, &se) || se.Line != 0 || !strings.HasPrefix(err.Error(), "review script review.txt: ") {
		t.Errorf("err = %v, want an *Error for the whole script", err)
	}
}
