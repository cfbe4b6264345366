package applypatch

import (
	"fmt"
	"strings"
	"testing"
)

// U3: an edit of a line next to the change, not of the change's own lines, is an edit
// elsewhere: the undo places the change by its lines and the context left intact, and
// the edit survives, on either side, and on both.
func TestUndoKeepsEditNextToChange(t *testing.T) {
	base := "func main() {\n\tname := \"world\"\n\tfmt.Println(\"hello, \" + name)\n\tfmt.Println(\"bye\")\n}\n"
	for _, tc := range []struct{ name, edited, want string }{
		{"above", "func main() {\n\tname := \"everyone\"\n\tfmt.Println(\"hello there, \" + name)\n\tfmt.Println(\"bye\")\n}\n",
			"func main() {\n\tname := \"everyone\"\n\tfmt.Println(\"hello, \" + name)\n\tfmt.Println(\"bye\")\n}\n"},
		{"below", "func main() {\n\tname := \"world\"\n\tfmt.Println(\"hello there, \" + name)\n\tfmt.Println(\"see you\")\n}\n",
			"func main() {\n\tname := \"world\"\n\tfmt.Println(\"hello, \" + name)\n\tfmt.Println(\"see you\")\n}\n"},
		{"both", "func main() {\n\tname := \"all\"\n\tfmt.Println(\"hello there, \" + name)\n\tfmt.Println(\"see you\")\n}\n",
			"func main() {\n\tname := \"all\"\n\tfmt.Println(\"hello, \" + name)\n\tfmt.Println(\"see you\")\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"main.go": base})
			b.apply("*** Update File: main.go\n@@\n \tname := \"world\"\n-\tfmt.Println(\"hello, \" + name)\n+\tfmt.Println(\"hello there, \" + name)\n \tfmt.Println(\"bye\")")
			b.write("main.go", tc.edited)
			if _, err := b.revert(true); err != nil {
				t.Fatalf("Undo: %v", err)
			}
			if got := b.tree()["main.go"]; got != tc.want {
				t.Errorf("after undo:\n%s", got)
			}
		})
	}
}

// U3, M2: an undo or a redo is refused, with nothing written, wherever the ordinary search
// and the file's edits since could put the change at different places, or its own lines
// were edited: a copy of the change found with its context while the original's context
// was edited, a copy that keeps half of the context, a function like the changed one
// moved above it with the change's lines, lines inserted between neighbours that are no
// longer next to each other (alone, or in a hunk that also edits), and a changed line
// edited whose text occurs elsewhere.
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
				if _, err := b.revert(true); err != nil {
					t.Fatalf("Undo: %v", err)
				}
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

// U3: an undo that puts back deleted lines whose neighbour below was edited since puts
// them next to the neighbour above, where the edit left the rest of the file in place,
// and the edit survives.
func TestUndoPutsDeletedLinesBackNextToAnEdit(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "a\nb\nc\nD\ne\nf\ng\n"})
	b.apply("*** Update File: f\n@@\n b\n c\n-D\n e\n f")
	b.write("f", "a\nb\nc\nE (mine)\nf\ng\n")
	if _, err := b.revert(true); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if got := b.tree()["f"]; got != "a\nb\nc\nD\nE (mine)\nf\ng\n" {
		t.Errorf("after undo: %q", got)
	}
}

// U1, U4: a commit that leaves every byte as it was (a line replaced by itself) records
// nothing: the undone change before it can still be redone, and the next undo reverts
// the change before it, not an empty one.
func TestCommitThatWritesNothingIsNotRecorded(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "j\nk\n"})
	b.apply("*** Update File: f\n@@\n-j\n+J")
	if _, err := b.revert(true); err != nil {
		t.Fatalf("Undo: %v", err)
	}
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
	if _, err := b.revert(true); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if got, want := b.tree()["f"], strings.Replace(before.String(), "\n10\n", "\nTEN\n", 1); got != want {
		t.Errorf("after undo: %q", got)
	}
	if got := b.tree()["m"]; got != "a\r\nb\nc\r\n" {
		t.Errorf("the mixed file after undo: %q", got)
	}
}

// U3: changes three lines apart give revert hunks that share no line, so the search's
// order rule cannot put the second one past the first one's context onto a copy of its
// lines made since: the undo is refused, not applied to the copy.
func TestUndoOfNearChangesDoesNotRevertACopy(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "a\nb\nX\n"})
	b.apply("*** Update File: f\n@@\n-a\n+A\n@@\n b\n-X\n+Y")
	b.write("f", "A\nb\nY\nb\nY\n")
	if _, err := b.revert(true); err == nil {
		t.Fatalf("the undo placed a change whose lines occur twice:\n%s", b.tree()["f"])
	}
	if got := b.tree()["f"]; got != "A\nb\nY\nb\nY\n" {
		t.Errorf("a refused undo wrote: %q", got)
	}
}

// U3: an edit between two changes close together is an edit elsewhere for both.
func TestUndoKeepsEditBetweenNearChanges(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "zeta\nend\nbeta\nelse {\ngamma\nzeta30\ngamma59\n#\n"})
	b.apply("*** Update File: f\n@@\n beta\n else {\n+iota\n+#\n gamma\n@@\n gamma59\n #\n+beta77")
	b.write("f", "zeta\nend\nbeta\nelse {\niota\n#\ngamma\nmine\ngamma59\n#\nbeta77\n")
	if _, err := b.revert(true); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if got := b.tree()["f"]; got != "zeta\nend\nbeta\nelse {\ngamma\nmine\ngamma59\n#\n" {
		t.Errorf("after undo: %q", got)
	}
}

// U4, M6: a redo looks for the change below the nearest line above it that is unique on
// both sides (here its function's header): a function moved above it since, whose lines
// the change's context also fits, is not taken for it.
func TestRedoIsNotTakenToAFunctionMovedAbove(t *testing.T) {
	b := newUndoBench(t, map[string]string{"f": "func alpha() {\n\tx := 1\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n\nfunc beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n"})
	b.apply("*** Update File: f\n@@ func alpha() {\n \t\treturn nil\n \t}\n-\treturn err\n+\treturn wrap(err)\n }")
	if _, err := b.revert(true); err != nil {
		t.Fatalf("Undo: %v", err)
	}
	moved := "func beta() {\n\tif x > 0 {\n\t\treturn nil\n\t}\n\treturn err\n}\n\nfunc alpha() {\n\tx := 1\n\treturn err\n}\n"
	b.write("f", moved)
	if _, err := b.revert(false); err == nil {
		t.Fatalf("the redo went to another function:\n%s", b.tree()["f"])
	}
	if got := b.tree()["f"]; got != moved {
		t.Errorf("a refused redo wrote: %q", got)
	}
}
