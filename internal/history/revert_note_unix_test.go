//go:build unix

package history

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// U2, X11: what is planted in the place of the notes' directory, or of a note, never
// carries the store's reads, removals or writes elsewhere, and never blocks: a link to
// another directory is not listed (the files there stay) and is replaced by a directory
// of the store's own when a note is written; a FIFO in the directory's place is no
// directory; a link or a FIFO named as a note is removed itself; a directory named as a
// note stops that note only.
func TestRevertNotesPlantedInPlace(t *testing.T) {
	state, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "0011223344aa")
	os.WriteFile(victim, []byte("precious"), 0o644)
	os.WriteFile(filepath.Join(outside, "other.txt"), []byte("precious"), 0o644)
	s := Open(afero.NewOsFs(), state, key, Limits{})
	dir := filepath.Join(state, "reverting")

	os.Symlink(outside, dir)
	if got := s.RevertNotes(); len(got) != 0 {
		t.Errorf("RevertNotes through a link = %+v", got)
	}
	if err := s.NoteRevert(note("00112233aabb")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("the notes' directory after a note is written: %v, %v; want a directory", fi, err)
	}
	for _, name := range []string{victim, filepath.Join(outside, "other.txt")} {
		if b, err := os.ReadFile(name); err != nil || string(b) != "precious" {
			t.Errorf("%s = %q, %v: the store reached outside", name, b, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("the directory outside holds %d entries, want its own 2", len(entries))
	}

	os.RemoveAll(dir)
	if err := syscall.Mkfifo(dir, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan []RevertNote)
	go func() { done <- s.RevertNotes() }()
	select {
	case got := <-done:
		if len(got) != 0 {
			t.Errorf("RevertNotes of a FIFO = %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RevertNotes blocked on a FIFO in the directory's place")
	}

	os.Remove(dir)
	os.Mkdir(dir, 0o700)
	os.Symlink(victim, filepath.Join(dir, "0011223344aa"))
	syscall.Mkfifo(filepath.Join(dir, "0011223344bb"), 0o600)
	os.Mkdir(filepath.Join(dir, "0011223344cc"), 0o700)
	if got := s.RevertNotes(); len(got) != 0 {
		t.Errorf("RevertNotes = %+v, want none of the planted ones", got)
	}
	for _, name := range []string{"0011223344aa", "0011223344bb"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s is left (%v)", name, err)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("the link's target = %q, %v", b, err)
	}
	if err := s.NoteRevert(note("0011223344cc")); err == nil {
		t.Error("a note was written over a directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the notes' directory holds %d entries, want the planted directory alone (no temporary file)", len(entries))
	}
}

// U1, X11: a link planted where the store writes an undone mark or a commit's intent
// note is replaced, never written through: the file it leads to keeps its bytes.
func TestMarksNeverWrittenThroughLinks(t *testing.T) {
	state, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	os.WriteFile(victim, []byte("precious"), 0o644)
	s := Open(afero.NewOsFs(), state, key, Limits{})
	os.MkdirAll(filepath.Join(state, "undone"), 0o700)
	os.MkdirAll(filepath.Join(state, "entries"), 0o700)
	os.Symlink(victim, filepath.Join(state, "undone", "00112233aabb"))
	os.Symlink(victim, filepath.Join(state, "entries", "00112233aabb.intent"))
	if err := s.MarkUndone("00112233aabb", true, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Intend("00112233aabb"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("the link's target = %q, %v: the store wrote through a link", b, err)
	}
	for _, name := range []string{"undone/00112233aabb", "entries/00112233aabb.intent"} {
		if fi, err := os.Lstat(filepath.Join(state, name)); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want the store's own file in the link's place", name, fi, err)
		}
	}
}
