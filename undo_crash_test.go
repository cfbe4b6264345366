package applypatch

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/internal/history"
)

// undoMatrix is a change of every kind: an Add into a new directory, an Update, a
// Delete and a Move with an edit.
var undoMatrix = []string{
	"*** Add File: new/dir/n.txt\n+n",
	"*** Update File: a.txt\n@@\n one\n-two\n+TWO",
	"*** Delete File: d.txt",
	"*** Update File: m.txt\n*** Move to: moved/m.txt\n@@\n-m\n+M",
}

// U2, X11: an undo stopped as if the process died after its k-th filesystem operation,
// for every k, recovers like any commit: the tree is what the change left, with the
// change still undoable, or what it found, with the change undone. Never anything else.
func TestUndoCrashMatrix(t *testing.T) {
	setup := func() (*undoBench, map[string]string, map[string]string) {
		b := newUndoBench(t, map[string]string{"a.txt": "one\ntwo\n", "d.txt": "d\n", "m.txt": "m\n"})
		before := b.tree()
		b.apply(undoMatrix...)
		return b, before, b.tree()
	}
	counts := map[string]int{}
	for k := 0; ; k++ {
		b, before, after := setup()
		halted := 0
		view := faultfs.New(b.fsys, faultfs.FailEvery(func(faultfs.Op, string) bool {
			halted++
			return halted > k
		}))
		pr, err := Undo(context.Background(), view, b.opts)
		if err == nil {
			_, err = Commit(context.Background(), pr)
		}
		if _, rerr := Recover(context.Background(), b.fsys, b.opts); rerr != nil {
			t.Fatalf("k=%d: Recover: %v", k, rerr)
		}
		got := b.tree()
		ok := undoable(t, b)
		switch {
		case cmp.Equal(got, after) && ok:
			counts["change kept, still undoable"]++
		case cmp.Equal(got, before) && !ok && err == nil:
			counts["undone"]++
		default:
			t.Fatalf("k=%d (err %v): the tree is neither the change's nor its baseline (undoable %v): %s", k, err, ok, cmp.Diff(before, got))
		}
		if err == nil {
			t.Logf("k = 0..%d: %v", k, counts)
			break
		}
	}
	if counts["change kept, still undoable"] < 5 {
		t.Errorf("the matrix did not interrupt the undo midway: %v", counts)
	}
}

// undoable reports whether the bench's history has a change to undo.
func undoable(t *testing.T, b *undoBench) bool {
	t.Helper()
	s, err := b.opts.History.opened()
	if err != nil {
		t.Fatal(err)
	}
	_, ok, err := s.Undoable()
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// U1: a history store that holds entries sealed with another key, entries cut short or
// changed by a byte is never acted on: Undo finds nothing to undo, and writes nothing.
func TestUndoIgnoresPlantedHistory(t *testing.T) {
	src := newUndoBench(t, map[string]string{"a.txt": "x\n"})
	src.opts.History = &History{fsys: afero.NewMemMapFs(), dir: "/planted"}
	src.opts.History.once.Do(func() { // sealed with another user's key
		src.opts.History.store = history.Open(src.opts.History.fsys, "/planted", []byte("another user's key, 32 bytes...."), history.Limits{})
	})
	src.apply("*** Update File: a.txt\n@@\n-x\n+y")
	planted, _ := afero.ReadDir(src.opts.History.fsys, "/planted/entries")
	b := newUndoBench(t, map[string]string{"a.txt": "y\n"})
	for _, fi := range planted {
		raw, _ := afero.ReadFile(src.opts.History.fsys, "/planted/entries/"+fi.Name())
		for i, data := range [][]byte{raw, raw[:len(raw)/2], append([]byte{raw[0] ^ 1}, raw[1:]...)} {
			name := "/state/history/entries/" + fi.Name()
			if i > 0 {
				name = "/state/history/entries/000000000" + string(rune('1'+i)) + fi.Name()[10:]
			}
			afero.WriteFile(b.fsys, name, data, 0o600)
		}
	}
	before := b.tree()
	if _, err := b.revert(true); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("Undo over a planted store: %v, want ErrNothingToUndo", err)
	}
	if list, err := b.opts.History.Entries(); err != nil || len(list) != 0 {
		t.Errorf("Entries = %v, %v; want none", list, err)
	}
	if got := b.tree(); !cmp.Equal(got, before) {
		t.Errorf("a planted history wrote: %s", cmp.Diff(before, got))
	}
}
