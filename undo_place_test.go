package applypatch

import "testing"

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

// U3, M2: when the change's lines occur twice since (a copy), and the context left intact
// around each places one of them, the undo is not certain: it is refused, nothing written.
// So it is when a change that only removed lines lost the context on both sides.
func TestUndoRefusesTrimmedContextAtTwoPlaces(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"})
	b.apply("*** Update File: a.txt\n@@\n e\n-f\n+F\n g")
	// The original's line above edited, and a copy whose line below is: as much context
	// is left around each.
	copied := "a\nb\nc\nd\nE\nF\ng\nh\ni\nj\nk\nl\nx\nc\nd\ne\nF\nG\ny\n"
	b.write("a.txt", copied)
	if _, err := b.revert(true); err == nil {
		t.Fatal("the undo placed the change at one of two places")
	}
	if got := b.tree()["a.txt"]; got != copied {
		t.Errorf("a refused undo wrote: %q", got)
	}

	b = newUndoBench(t, map[string]string{"r.txt": "1\n2\n3\n4\n5\n6\n7\n"})
	b.apply("*** Update File: r.txt\n@@\n 3\n-4\n 5")
	edited := "1\n2\nthree\nfive\n6\n7\n"
	b.write("r.txt", edited)
	if _, err := b.revert(true); err == nil {
		t.Fatal("an undo re-added lines with no context to place them by")
	}
	if got := b.tree()["r.txt"]; got != edited {
		t.Errorf("a refused undo wrote: %q", got)
	}
}
