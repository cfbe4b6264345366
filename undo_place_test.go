package applypatch

import (
	"fmt"
	"strings"
	"testing"
)

// U3: an edit next to the change, not of the change's own lines, is an edit elsewhere:
// the undo places the change by its lines and the context left intact, and the edit
// survives: on either side of a changed line, on both, below lines put back, and between
// two changes close together.
func TestUndoKeepsEditNextToChange(t *testing.T) {
	hello := "*** Update File: f\n@@\n \tname := \"world\"\n-\tfmt.Println(\"hello, \" + name)\n+\tfmt.Println(\"hello there, \" + name)\n \tfmt.Println(\"bye\")"
	main := func(name, greeting, bye string) string {
		return "func main() {\n\tname := \"" + name + "\"\n\tfmt.Println(\"" + greeting + ", \" + name)\n\tfmt.Println(\"" + bye + "\")\n}\n"
	}
	for _, tc := range []struct{ name, file, section, edited, want string }{
		{"above", main("world", "hello", "bye"), hello, main("everyone", "hello there", "bye"), main("everyone", "hello", "bye")},
		{"below", main("world", "hello", "bye"), hello, main("world", "hello there", "see you"), main("world", "hello", "see you")},
		{"both", main("world", "hello", "bye"), hello, main("all", "hello there", "see you"), main("all", "hello", "see you")},
		{"below deleted lines put back", "a\nb\nc\nD\ne\nf\ng\n", "*** Update File: f\n@@\n b\n c\n-D\n e\n f",
			"a\nb\nc\nE (mine)\nf\ng\n", "a\nb\nc\nD\nE (mine)\nf\ng\n"},
		{"between near changes", "zeta\nend\nbeta\nelse {\ngamma\nzeta30\ngamma59\n#\n",
			"*** Update File: f\n@@\n beta\n else {\n+iota\n+#\n gamma\n@@\n gamma59\n #\n+beta77",
			"zeta\nend\nbeta\nelse {\niota\n#\ngamma\nmine\ngamma59\n#\nbeta77\n", "zeta\nend\nbeta\nelse {\ngamma\nmine\ngamma59\n#\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"f": tc.file})
			b.apply(tc.section)
			b.write("f", tc.edited)
			b.mustRevert(true)
			if got := b.tree()["f"]; got != tc.want {
				t.Errorf("after undo: %q", got)
			}
		})
	}
}

// U3, M2: an undo or a redo is refused, with nothing written, wherever the ordinary search
// and the file's edits since could put the change at different places, or its own lines
// were edited: a copy of the change found with its context while the original's context
// was edited, a copy that keeps half of the context, a function like the changed one
// moved above it with the change's lines, a copy of the second of two near changes
// (their hunks share no line, so the order rule cannot pass the first one's context onto
// it), one of two identical lines removed next to the change, lines inserted between
// neighbours no longer next to each other (alone, or in a hunk that also edits), and a
// changed line edited whose text occurs elsewhere.
func TestRevertRefusedWhereThePlaceIsNotCertain(t *testing.T) {
	fns := "func alpha() {\n\tx := 1\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n\nfunc beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n"
	for _, tc := range []struct {
		name, file string
		sections   []string
		edited     string
		redo       bool
	}{
		{"copy found whole, the original's context edited", "a\nb\nc\nX\nd\ne\nf\n",
			[]string{"*** Update File: f\n@@\n c\n-X\n+Y\n d"}, "a\nb\nC\nY\nd\ne\nf\nz\na\nb\nc\nY\nd\ne\nf\n", false},
		{"copy keeping half the context", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n",
			[]string{"*** Update File: f\n@@\n e\n-f\n+F\n g"}, "a\nb\nc\nd\nE\nF\ng\nh\ni\nj\nk\nl\nx\nc\nd\ne\nF\nG\ny\n", false},
		{"a deletion's context next to it edited, repeated elsewhere", "r\nD\nt\nq\nr\nt\n",
			[]string{"*** Update File: f\n@@\n r\n-D\n t\n q"}, "r\nfoo\nq\nr\nt\n", false},
		{"the changed line edited, its text elsewhere", "x\nm\nQ\n",
			[]string{"*** Update File: f\n@@\n x\n m\n-Q\n+x"}, "x\nm\nZ\n", false},
		{"a function moved above the changed one, its lines the change's", fns,
			[]string{"*** Update File: f\n@@ func alpha() {\n \t\treturn nil\n \t}\n-\treturn err\n+\treturn wrap(err)\n }"},
			"func beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn wrap(err)\n}\n\nfunc alpha() {\n\tx := 1\n\treturn wrap(err)\n}\n", false},
		{"a line typed where a change that also edits deleted one", "head\nx\ny\nz\nM\nt\nu\n",
			[]string{"*** Update File: f\n@@\n head\n-x\n+X\n y\n z\n-M\n t"}, "head\nX\ny\nz\nnew1\nt\nu\n", false},
		{"near changes, the second one's lines copied below", "a\nb\nX\n",
			[]string{"*** Update File: f\n@@\n-a\n+A\n@@\n b\n-X\n+Y"}, "A\nb\nY\nb\nY\n", false},
		{"one of two identical lines deleted, one the change's", "p\nq\nE\nr\ns\n",
			[]string{"*** Update File: f\n@@\n q\n+X\n+E\n E\n r"}, "p\nq\nX\nE\nr\ns\n", false},
		{"a line typed between an insertion's neighbours", "a\nb\nc\ne\nf\n",
			[]string{"*** Update File: f\n@@\n a\n b\n c\n+N\n e\n f"}, "a\nb\nc\nU\nN\ne\nf\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"f": tc.file})
			b.apply(tc.sections...)
			b.write("f", tc.edited)
			want := tc.edited
			if tc.redo {
				b.mustRevert(true)
				want = b.tree()["f"]
			}
			if _, err := b.revert(!tc.redo); err == nil {
				t.Fatalf("placed where it is not certain:\n%s", b.tree()["f"])
			}
			if got := b.tree()["f"]; got != want {
				t.Errorf("a refused revert wrote: %q", got)
			}
		})
	}
}

// U1, U4: a commit that leaves every byte as it was (a line replaced by itself) records
// nothing: the undone change before it can still be redone, and the next undo reverts
// the change before it, not an empty one.
func TestCommitThatWritesNothingIsNotRecorded(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "j\nk\n"})
	b.apply("*** Update File: f\n@@\n-j\n+J")
	b.mustRevert(true)
	b.apply("*** Update File: f\n@@\n-k\n+k")
	if list, _ := b.opts.History.Entries(); len(list) != 1 {
		t.Errorf("the history lists %d changes, want the one undone", len(list))
	}
	if _, err := b.revert(false); err != nil {
		t.Fatalf("Redo after a commit that wrote nothing: %v", err)
	}
	if got := b.tree()["f"]; got != "J\nk\n" {
		t.Errorf("after redo: %q", got)
	}
}

// U3, P17: a text file rewritten whole by a Delete then an Add is recorded as the lines
// the rewrite changed, so an edit since to a line it kept survives its undo; a file
// with mixed line endings, whose kept lines the rewrite gave the first line's ending,
// is recorded whole and still undone exactly.
func TestUndoOfTextRewriteKeepsLaterEdits(t *testing.T) {
	var before, after strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&before, "%d\n", i)
		line := map[int]string{3: "THREE", 17: "SEVENTEEN"}[i]
		if line == "" {
			line = fmt.Sprint(i)
		}
		fmt.Fprintf(&after, "+%s\n", line)
	}
	b := newUndoBench(t, map[string]string{"f": before.String(), "m": "a\r\nb\nc\r\n"})
	b.apply("*** Delete File: f\n*** Add File: f\n"+strings.TrimSuffix(after.String(), "\n"), "*** Delete File: m\n*** Add File: m\n+a\n+B\n+c")
	b.write("f", strings.Replace(b.tree()["f"], "\n10\n", "\nTEN\n", 1))
	b.mustRevert(true)
	if got, want := b.tree()["f"], strings.Replace(before.String(), "\n10\n", "\nTEN\n", 1); got != want {
		t.Errorf("after undo: %q", got)
	}
	if got := b.tree()["m"]; got != "a\r\nb\nc\r\n" {
		t.Errorf("the mixed file after undo: %q", got)
	}
}

// U4, M6: a redo looks for the change below the nearest line above it that is unique on
// both sides (here its function's header): a function moved above it since, whose lines
// the change's context also fits, is not taken for it.
func TestRedoIsNotTakenToAFunctionMovedAbove(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "func alpha() {\n\tx := 1\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n\nfunc beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n"})
	b.apply("*** Update File: f\n@@ func alpha() {\n \t\treturn nil\n \t}\n-\treturn err\n+\treturn wrap(err)\n }")
	b.mustRevert(true)
	moved := "func beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n\nfunc alpha() {\n\tx := 1\n\treturn err\n}\n"
	b.write("f", moved)
	if _, err := b.revert(false); err == nil {
		t.Fatalf("the redo went to another function:\n%s", b.tree()["f"])
	}
	if got := b.tree()["f"]; got != moved {
		t.Errorf("a refused redo wrote: %q", got)
	}
}
