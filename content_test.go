package applypatch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/txn"
)

// TestDerivedContentIsHeldContent: a commit writes an Update's result as it derives it
// from the baseline (PERF3). Written, hashed and compared, derived content must be
// exactly the bytes applyHunks builds: the same file, the same journal identity, and the
// same answers when rollback asks whether a path holds what the commit wrote, or a
// prefix of it.
func TestDerivedContentIsHeldContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		var file strings.Builder
		n := 1 + rng.IntN(40)
		for i := range n {
			fmt.Fprintf(&file, "line %d%s", i, [...]string{"\n", "\r\n", "\r", "\n"}[rng.IntN(4)])
		}
		s := file.String()
		if rng.IntN(3) == 0 {
			s = strings.TrimRight(s, "\r\n") // no final terminator
		}
		txt := lines.Split(s)
		var sel []placedHunk
		for at := rng.IntN(3); at < txt.Count(); at += 1 + rng.IntN(6) {
			h := Hunk{Lines: []Line{{Kind: LineRemove, Text: txt.Line(at)}, {Kind: LineAdd, Text: fmt.Sprint("new ", at)}}}
			if rng.IntN(2) == 0 {
				h.Lines = h.Lines[1:] // an insertion
			}
			sel = append(sel, placedHunk{&hunkChange{Hunk: h, Place: match.Place{Start: at, Len: oldCount(h.Lines)}, Selected: true}, len(sel) + 1})
		}
		want, merr := applyHunks(txt, sel)
		if merr != nil {
			t.Fatal(merr)
		}
		bom := [][]byte{nil, lines.BOMUTF8}[rng.IntN(2)]
		want = append(bytes.Clone(bom), want...)
		checkContent(t, trial, &content{t: txt, regs: regionsOf(sel), bom: bom}, want, rng.IntN(len(want)+1))
	}
}

// checkContent checks that c is want however a commit uses it: written out, summed for
// the journal and the history, and compared whole or, at cut, as a prefix, where one
// changed byte is never accepted.
func checkContent(t *testing.T, trial int, c *content, want []byte, cut int) {
	t.Helper()
	var got bytes.Buffer
	if err := c.WriteOut(&got); err != nil || !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("trial %d: wrote %q (%v), want %q", trial, got.Bytes(), err, want)
	}
	if !txn.WroteMatches(want, txn.WroteID(c)) {
		t.Fatalf("trial %d: the journal's identity differs from the bytes'", trial)
	}
	if size, crc := (&txn.Step{Op: txn.Write, Body: c}).Written(); size != int64(len(want)) || crc != history.Checksum(want) {
		t.Fatalf("trial %d: the step's sum differs from the bytes'", trial)
	}
	if !c.Equal(want) || c.Equal(append(bytes.Clone(want), 'x')) || len(want) > 0 && c.Equal(want[:len(want)-1]) {
		t.Fatalf("trial %d: equal is wrong", trial)
	}
	if !c.HasPrefix(want[:cut]) || c.HasPrefix(append(bytes.Clone(want), 'x')) {
		t.Fatalf("trial %d: prefix is wrong at %d", trial, cut)
	}
	if cut < len(want) {
		other := bytes.Clone(want[:cut+1])
		other[cut] ^= 1
		if c.HasPrefix(other) || c.Equal(append(other, want[cut+1:]...)) {
			t.Fatalf("trial %d: a changed byte at %d is accepted", trial, cut)
		}
	}
}

// TestAddedContentIsHeldContent: a commit writes an Add as the bytes its lines join to,
// once (PERF5). Written, summed for the journal and compared, the content a change
// gives its write step must be exactly those bytes: each line and a newline, nothing for
// no lines.
func TestAddedContentIsHeldContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		var ls []string
		for range rng.IntN(6) {
			ls = append(ls, [...]string{"", "a", "line\r", " x y ", strings.Repeat("z", 20000)}[rng.IntN(5)])
		}
		var want []byte
		for _, l := range ls {
			want = append(append(want, l...), '\n')
		}
		c, err := (&change{Op: Operation{Kind: OpAdd, Lines: ls}}).content()
		if err != nil {
			t.Fatal(err)
		}
		checkContent(t, trial, c, want, rng.IntN(len(want)+1))
	}
}
