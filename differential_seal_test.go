package applypatch_test

import (
	"os"
	"testing"

	"github.com/applypatch/applypatch"
)

// TestDifferentialSeal is a hook for .ci/differential, not a test: with
// APPLYPATCH_DIFF_SEAL=FILE it seals the journal record in FILE as the sealjournal
// command of the testscripts does (applypatch.SealJournal, under the key in
// $XDG_STATE_HOME), and writes the journal directory's name to FILE.name and its
// journal.json to FILE.sealed, so that the differential's replay of a script plants the
// same journal the script's own run plants. Without the variable it is skipped.
func TestDifferentialSeal(t *testing.T) {
	in := os.Getenv("APPLYPATCH_DIFF_SEAL")
	if in == "" {
		t.Skip("a hook for .ci/differential: set APPLYPATCH_DIFF_SEAL=FILE")
	}
	rec, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	name, data, err := applypatch.SealJournal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in+".name", []byte(name), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in+".sealed", data, 0o600); err != nil {
		t.Fatal(err)
	}
}
