package applypatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// U3: apply a random change, make random later edits outside its hunks (farther than
// their context reaches), undo: the file is its baseline with the later edits, every
// time. The change replaces runs of lines, inserts and removes them; later edits rewrite,
// insert and remove lines of their own.
func TestUndoPropertyKeepsLaterEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	later := 0
	for iter := range 200 {
		n := 20 + rng.IntN(60)
		base := make([]string, n)
		for i := range base {
			base[i] = fmt.Sprintf("line %d of %d: %x", i, iter, rng.Uint32())
		}
		// The change: up to three edits, each a run of removed lines and added ones.
		type edit struct{ at, del, add int }
		var edits []edit
		for at := 1 + rng.IntN(5); at < n-2 && len(edits) < 3; at += 12 + rng.IntN(15) {
			edits = append(edits, edit{at, rng.IntN(3), rng.IntN(3)})
			if edits[len(edits)-1].del+edits[len(edits)-1].add == 0 {
				edits[len(edits)-1].add = 1
			}
		}
		var sections []string
		after := []string{}
		last := 0
		touched := map[int]bool{} // lines of after within reach of a hunk
		for k, e := range edits {
			e.del = min(e.del, n-e.at)
			after = append(after, base[last:e.at]...)
			var h []string
			for i := max(0, e.at-1); i < e.at; i++ {
				h = append(h, " "+base[i])
			}
			for i := e.at; i < e.at+e.del; i++ {
				h = append(h, "-"+base[i])
			}
			start := len(after)
			for i := range e.add {
				line := fmt.Sprintf("added %d.%d", k, i)
				h = append(h, "+"+line)
				after = append(after, line)
			}
			if e.at+e.del < n {
				h = append(h, " "+base[e.at+e.del])
			}
			for i := start - 4; i <= len(after)+4; i++ {
				touched[i] = true
			}
			sections = append(sections, "@@\n"+strings.Join(h, "\n"))
			last = e.at + e.del
		}
		after = append(after, base[last:]...)
		b := newUndoBench(t, map[string]string{"f.txt": strings.Join(base, "\n") + "\n"})
		b.apply("*** Update File: f.txt\n" + strings.Join(sections, "\n"))
		if got := b.tree()["f.txt"]; got != strings.Join(after, "\n")+"\n" {
			t.Fatalf("iter %d: the change applied as %q, want %q", iter, got, after)
		}
		// Later edits, far from every hunk: the same done to the baseline is the want.
		want := append([]string(nil), base...)
		edited := append([]string(nil), after...)
		for j := len(after) - 1; j >= 0; j-- {
			if touched[j] || rng.IntN(6) != 0 {
				continue
			}
			bj := j - (len(after) - len(base)) // a line after the last hunk keeps its distance to the end
			if j < edits[0].at {
				bj = j
			} else if j <= len(after)-1-(n-last) {
				continue // between hunks, where the two texts' lines differ in number: keep it simple
			}
			later++
			switch rng.IntN(3) {
			case 0:
				edited[j], want[bj] = "rewritten later", "rewritten later"
			case 1:
				edited = append(edited[:j+1], append([]string{"inserted later"}, edited[j+1:]...)...)
				want = append(want[:bj+1], append([]string{"inserted later"}, want[bj+1:]...)...)
			case 2:
				edited = append(edited[:j], edited[j+1:]...)
				want = append(want[:bj], want[bj+1:]...)
			}
		}
		b.write("f.txt", strings.Join(edited, "\n")+"\n")
		if _, err := b.revert(true); err != nil {
			t.Fatalf("iter %d: Undo: %v\nafter:\n%s\nedited:\n%s", iter, err, strings.Join(after, "\n"), strings.Join(edited, "\n"))
		}
		if got := b.tree()["f.txt"]; got != strings.Join(want, "\n")+"\n" {
			t.Fatalf("iter %d: after undo\n%s\nwant\n%s", iter, got, strings.Join(want, "\n"))
		}
	}
	if later < 200 {
		t.Errorf("only %d later edits in 200 files: the property tested little", later)
	}
	t.Logf("%d later edits kept", later)
}
