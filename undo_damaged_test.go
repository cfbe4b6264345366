package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/dryrun"
)

// U2, U1: when the record of the newest change is damaged, an undo is refused with
// nothing written, rather than reverting the change before it as if it were the newest.
// A check says so and removes nothing; the undo removes the damaged record, and the
// next undo reverts the change before it.
func TestUndoOfDamagedNewestEntryRefused(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\n", "z.txt": "z\n"})
	b.apply("*** Update File: a.txt\n@@\n-a\n+A")
	b.apply("*** Update File: z.txt\n@@\n-z\n+Z")
	newest, _ := afero.Glob(b.fsys, "/state/history/entries/0000000002-*.entry")
	if len(newest) != 1 {
		t.Fatalf("the newest entry is in %v, want one file", newest)
	}
	raw, _ := afero.ReadFile(b.fsys, newest[0])
	raw[len(raw)/2] ^= 1
	afero.WriteFile(b.fsys, newest[0], raw, 0o600)
	after := map[string]string{"a.txt": "A\n", "z.txt": "Z\n"}

	_, err := Undo(dryrun.With(context.Background()), b.fsys, b.opts)
	if err == nil || errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "would remove the damaged record") {
		t.Fatalf("a checked undo over a damaged newest entry: %v", err)
	}
	if ok, _ := afero.Exists(b.fsys, newest[0]); !ok {
		t.Fatal("a check removed the damaged entry")
	}
	_, err = b.revert(true)
	if err == nil || errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "undo again to revert the change before it") {
		t.Fatalf("an undo over a damaged newest entry: %v", err)
	}
	if got := b.tree(); !cmp.Equal(got, after) {
		t.Fatalf("the refused undo wrote: %s", cmp.Diff(after, got))
	}
	if ok, _ := afero.Exists(b.fsys, newest[0]); ok {
		t.Fatal("the damaged entry was kept")
	}
	if _, err := b.revert(true); err != nil {
		t.Fatalf("the undo after the damaged entry's removal: %v", err)
	}
	if got, want := b.tree(), map[string]string{"a.txt": "a\n", "z.txt": "Z\n"}; !cmp.Equal(got, want) {
		t.Errorf("after the next undo: %s", cmp.Diff(want, got))
	}
}
