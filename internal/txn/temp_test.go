package txn

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTempNameHasCommitID checks that a journaled commit's temporary file is named with
// the commit's id where the pattern leaves its random part, with no wildcard left in the
// name, hidden and beside its target (X4, X11).
func TestTempNameHasCommitID(t *testing.T) {
	tx := &txn{}
	for target, want := range map[string]string{
		"/w/pkg/file.go":                 "/w/pkg/.file.go.applypatch-0123456789ab",
		"/w/" + strings.Repeat("n", 250): "/w/." + strings.Repeat("n", tempStem) + ".applypatch-0123456789ab",
	} {
		got := tx.tempName(filepath.FromSlash(target), "0123456789ab")
		if got != filepath.FromSlash(want) {
			t.Errorf("tempName(%s) = %s, want %s", target, got, want)
		}
		if len(filepath.Base(got)) > 255 {
			t.Errorf("tempName(%s) has a base of %d bytes", target, len(filepath.Base(got)))
		}
	}
}

// TestOwnFile: recovery removes only the names a commit writes in its journal
// directory (X13: a planted name there is not the journal's to delete).
func TestOwnFile(t *testing.T) {
	for name, want := range map[string]bool{
		"journal.json": true, "b0": true, "b12": true,
		"b": false, "b1x": false, "xb1": false, "journal.json~": false, "B1": false, "b١": false, "": false,
	} {
		if got := ownFile(name); got != want {
			t.Errorf("ownFile(%q) = %v, want %v", name, got, want)
		}
	}
}
