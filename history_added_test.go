package applypatch

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/applypatch/applypatch/internal/history"
)

// newestEntry is the newest entry of the bench's history.
func (b *undoBench) newestEntry() history.Entry {
	b.t.Helper()
	s, err := b.opts.History.opened()
	if err != nil {
		b.t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) == 0 {
		b.t.Fatalf("the history lists %d entries, %v", len(list), err)
	}
	return list[len(list)-1]
}

// U1, PERF5: an added file's bytes are kept once, in the payload the entry keeps anyway:
// the entry holds the payload and the baseline of the file it updates, nothing more, and
// an undo and a redo of the Adds, empty lines first and last among them, give the bytes
// back exactly.
func TestHistoryKeepsAnAddedFileOnceInThePayload(t *testing.T) {
	b := newUndoBench(t, map[string]string{"keep.txt": "one\n"})
	b.apply("*** Add File: a.txt\n+\n+first\n+\n+\n+last\n+",
		"*** Add File: dir/b.txt\n+solo",
		"*** Update File: keep.txt\n@@\n-one\n+two")
	after := b.tree()
	e := b.newestEntry()
	for _, f := range e.Files {
		if f.Before.Exists {
			continue // the updated file: its baseline and its edit
		}
		if f.After.Payload == nil || f.After.Blob != -1 {
			t.Errorf("%s is kept as %+v, not as its lines of the payload", f.Name, f.After)
		}
	}
	if len(e.Blobs) != 2 {
		t.Errorf("the entry keeps %d contents, want 2 (the baseline of keep.txt and the payload): %+v", len(e.Blobs), e.Blobs)
	}
	b.mustRevert(true)
	if got := b.tree(); !cmp.Equal(got, map[string]string{"keep.txt": "one\n"}) {
		t.Errorf("after undo: %q", got)
	}
	b.mustRevert(false)
	if got := b.tree(); !cmp.Equal(got, after) {
		t.Errorf("after redo: %s", cmp.Diff(after, got))
	}
	if after["a.txt"] != "\nfirst\n\n\nlast\n\n" {
		t.Errorf("a.txt holds %q", after["a.txt"])
	}
}

// U1: a payload that does not spell an added file's lines as they are written (CRLF
// line ends, which the file does not get) keeps the file's own bytes, and its undo and
// redo are as exact.
func TestHistoryKeepsTheBytesOfAnAddThePayloadDoesNotSpell(t *testing.T) {
	b := newUndoBench(t, nil)
	payload := strings.ReplaceAll(patch("*** Add File: a.txt\n+one\n+two"), "\n", "\r\n")
	if _, err := Apply(context.Background(), b.fsys, payload, b.opts); err != nil {
		t.Fatal(err)
	}
	after := b.tree()
	e := b.newestEntry()
	if f := e.Files[0]; f.After.Payload != nil || f.After.Blob < 0 {
		t.Errorf("a.txt is kept as %+v, want its own bytes", f.After)
	}
	b.mustRevert(true)
	if got := b.tree(); len(got) != 0 {
		t.Errorf("after undo: %q", got)
	}
	b.mustRevert(false)
	if got := b.tree(); !cmp.Equal(got, after) {
		t.Errorf("after redo: %s", cmp.Diff(after, got))
	}
}

// U3: an added file edited since is not removed by an undo of its Add, whose record is
// a span of the payload.
func TestUndoOfAnAddKeptInThePayloadRefusesAnEditedFile(t *testing.T) {
	b := newUndoBench(t, nil)
	b.apply("*** Add File: a.txt\n+one\n+two")
	b.write("a.txt", "one\ntwo\nthree\n")
	if _, err := b.revert(true); err == nil {
		t.Fatal("the undo removed a file edited since")
	}
	if got := b.tree(); !cmp.Equal(got, map[string]string{"a.txt": "one\ntwo\nthree\n"}) {
		t.Errorf("after the refused undo: %q", got)
	}
}
