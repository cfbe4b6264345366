package applypatch

import (
	"errors"
	"reflect"
	"testing"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/txn"
)

// TestTxnFactsMapOneToOne: every fact the transaction reports becomes the public error
// it stood for before the move, field for field, with the same text, and every reason
// of a commit's conflict is reachable (issue 21, R1).
func TestTxnFactsMapOneToOne(t *testing.T) {
	public := map[ConflictReason]bool{}
	for _, r := range []txn.Reason{txn.Changed, txn.NotOwned, txn.Unsaved, txn.Owner} {
		p, ok := conflictReasons[r]
		if !ok || public[p] {
			t.Fatalf("reason %d maps to %v (ok %v), which another reason maps to already", r, p, ok)
		}
		public[p] = true
	}
	for _, p := range []ConflictReason{ConflictChanged, ConflictNotOwned, ConflictUnsaved, ConflictOwner} {
		if !public[p] {
			t.Errorf("no fact maps to %v", p)
		}
	}

	cause := errors.New("injected")
	conflict := &txn.Conflict{Reason: txn.Owner, Paths: []string{"a.txt"}, Expected: []string{"a.txt"},
		Reasons: map[string]string{"a.txt": "why"}}
	conflictErr := &ConflictError{Reason: ConflictOwner, Paths: conflict.Paths, Expected: conflict.Expected, Reasons: conflict.Reasons}
	linked := &txn.Linked{Path: "b\x01.txt", Err: cause}
	linkedErr := &FileError{Path: linked.Path, Reason: FileLinked, Err: cause}
	for _, tc := range []struct {
		name string
		fact error
		want error
	}{
		{"conflict", conflict, conflictErr},
		{"linked", linked, linkedErr},
		{"unwritten", &txn.Unapplied{Err: conflict}, &rolledBackError{Err: conflictErr}},
		{"rolled back", &txn.Unapplied{Err: linked, Wrote: true}, &rolledBackError{Err: linkedErr, Wrote: true}},
		{"incomplete", &txn.Incomplete{Cause: linked, Paths: []string{"a.txt"}, Reasons: map[string]string{"a.txt": "why"}},
			&IncompleteRollbackError{Cause: linkedErr, Paths: []string{"a.txt"}, Reasons: map[string]string{"a.txt": "why"}}},
		{"recovery", &txn.Incomplete{Cause: cause, Recovery: true}, &IncompleteRollbackError{Cause: cause, recovery: true}},
		{"unreadable", &filestate.ReadError{Path: "c/d.txt", Parent: "c", Err: cause},
			&FileError{Path: "c/d.txt", Reason: FileParentNotDir, Parent: "c", Err: cause}},
		{"other", cause, cause},
	} {
		got := txnError(tc.fact)
		if !reflect.DeepEqual(got, tc.want) || got.Error() != tc.want.Error() {
			t.Errorf("%s: %#v (%q), want %#v (%q)", tc.name, got, got, tc.want, tc.want)
		}
	}
	// A rollback that meets a linked file while restoring words it in its reason, where
	// no mapping sees the fact: the text must be the public one.
	if linked.Error() != linkedErr.Error() {
		t.Errorf("linked fact says %q, the public error %q", linked.Error(), linkedErr.Error())
	}
}
