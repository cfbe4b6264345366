package applypatch

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

// U2, U3, U4: whatever a change did, an undo of files nobody touched since puts back
// their exact bytes (line endings, a missing final line break, a byte-order mark), a redo
// the exact bytes the change wrote, and a second undo the first bytes again. The change
// is built from the file's own lines: plan says where its hunks go, how many lines each
// removes and adds and how much context it carries, and whether the file also moves and
// another is added and deleted beside it.
func FuzzUndoRoundTrip(f *testing.F) {
	f.Add([]byte("one\ntwo\nthree\n"), []byte{0, 1, 1, 1, 1})
	f.Add([]byte("one\r\ntwo\r\nthree\nfour"), []byte{7, 3, 0, 2, 1})
	f.Add([]byte("\ufeffa\nb\nc\nd\ne\nf\ng\nh\n"), []byte{2, 0, 1, 0, 3, 6, 2, 2, 0})
	f.Add([]byte("x\r\ry\n\nz"), []byte{1, 1, 1, 1, 2})
	f.Add([]byte(""), []byte{1, 0, 0, 2, 0})
	f.Fuzz(func(t *testing.T, content, plan []byte) {
		if len(plan) == 0 || len(content) > 4096 || !utf8.Valid(content) || strings.ContainsRune(string(content), 0) {
			return
		}
		sections, ok := roundTripChange(string(content), plan)
		if !ok {
			return
		}
		b := newUndoBench(t, map[string]string{"f.txt": string(content), "old.txt": string(content)})
		before := b.tree()
		if _, err := Apply(context.Background(), b.fsys, patch(sections...), b.opts); err != nil {
			return // a change the engine refuses has nothing to undo
		}
		after := b.tree()
		for i, want := range []map[string]string{before, after, before} {
			if _, err := b.revert(i != 1); err != nil {
				t.Fatalf("step %d: %v\nchange:\n%s", i, err, patch(sections...))
			}
			if got := b.tree(); !maps.Equal(got, want) {
				t.Fatalf("step %d left %q, want %q\nchange:\n%s", i, got, want, patch(sections...))
			}
		}
	})
}

// roundTripChange is the payload's sections for FuzzUndoRoundTrip: an Update of f.txt
// whose hunks plan places (three bytes each: the distance from the last hunk, lines
// removed, lines added, plus plan[0]'s context), and by plan[0]'s bits a Move of it, an
// Add and a Delete. It is false when the plan makes no change.
func roundTripChange(content string, plan []byte) ([]string, bool) {
	flags, ctx := plan[0], int(plan[0]>>4)%4
	ls := strings.Split(content, "\n")
	if len(ls) > 1 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	text := func(i int) string { return strings.TrimSuffix(ls[i], "\r") }
	var hunks []string
	at := 0
	for i := 1; i+2 < len(plan) && len(hunks) < 4; i += 3 {
		at += int(plan[i]) % 8
		del, add := int(plan[i+1])%4, int(plan[i+2])%3
		if at > len(ls) || del+add == 0 {
			break
		}
		del = min(del, len(ls)-at)
		var h []string
		for j := max(0, at-ctx); j < at; j++ {
			h = append(h, " "+text(j))
		}
		for j := at; j < at+del; j++ {
			h = append(h, "-"+text(j))
		}
		for j := range add {
			h = append(h, fmt.Sprintf("+added %d.%d", len(hunks), j))
		}
		end := min(len(ls), at+del+ctx)
		for j := at + del; j < end; j++ {
			h = append(h, " "+text(j))
		}
		if end == len(ls) && flags&8 != 0 {
			h = append(h, "*** End of File")
		}
		hunks = append(hunks, "@@\n"+strings.Join(h, "\n"))
		at = end
	}
	var sections []string
	if len(hunks) > 0 || flags&1 != 0 {
		s := "*** Update File: f.txt"
		if flags&1 != 0 {
			s += "\n*** Move to: moved/f.txt"
		}
		sections = append(sections, s+"\n"+strings.Join(hunks, "\n"))
	}
	if flags&2 != 0 {
		add := []string{"*** Add File: new.txt"}
		for i := range ls {
			add = append(add, "+"+text(i))
		}
		sections = append(sections, strings.Join(add, "\n"))
	}
	if flags&4 != 0 {
		sections = append(sections, "*** Delete File: old.txt")
	}
	return sections, len(sections) > 0
}
