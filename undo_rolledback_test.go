package applypatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// U1, X11: a commit killed after it noted its history entry but before it became final
// is undone by recovery, and its note with it: the next undo reverts the change before
// it, with no word of a change missing from the history.
func TestRecoveryForgetsTheNoteOfACommitItUndid(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	a := filepath.Join(ws, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	h := NewHistory(afero.NewOsFs(), state)
	opts := &Options{Workspace: ws, History: h}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+two"), opts); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	// The killed commit: its note, its write, and its journal with the record.
	s, _ := h.opened()
	s.Intend("0000000000bb")
	os.WriteFile(a, []byte("three\n"), 0o644)
	sum := sha256.Sum256([]byte("three\n"))
	record := fmt.Sprintf(`{"version":2,"id":"0123456789ab","steps":[{"name":"a.txt","path":"a.txt","existed":true,`+
		`"backup":"b0","mode":420,"wrote":%q,"wrote_mode":420}]}`, hex.EncodeToString(sum[:]))
	name, data, err := SealJournal([]byte(record))
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ws, name), 0o700)
	os.WriteFile(filepath.Join(ws, name, "b0"), []byte("two\n"), 0o600)
	os.WriteFile(filepath.Join(ws, name, "journal.json"), data, 0o600)

	if r, err := Recover(context.Background(), afero.NewOsFs(), opts); err != nil || len(r.Restored) != 1 {
		t.Fatalf("Recover = %+v, %v; want a.txt restored", r, err)
	}
	pr, err := Undo(context.Background(), afero.NewOsFs(), opts)
	if err != nil {
		t.Fatalf("Undo after the recovery: %v", err)
	}
	if _, err := Commit(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(a); string(b) != "one\n" {
		t.Errorf("a.txt = %q, want the first change undone", b)
	}
}
