package applypatch

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/applypatch/applypatch/internal/txn"
	"github.com/spf13/afero"
)

// Internals the external tests inspect.
type Change = change

// Changes returns the proposal's resolved operations, for tests that inspect them.
func (pr *Proposal) Changes() []*change { return pr.changes }

type RolledBackError = rolledBackError

// OwnerFunc lets the external tests name an OwnerPredicate from a function.
type OwnerFunc = ownerFunc

// authorizerFunc adapts a function to Authorizer, for tests.
type authorizerFunc func(ctx context.Context, mode Mode, paths []ClassifiedPath) error

func (f authorizerFunc) Authorize(ctx context.Context, mode Mode, paths []ClassifiedPath) error {
	return f(ctx, mode, paths)
}

// SealJournal seals a journal record (JSON, as a commit writes it) with the key this
// process's commits on the OS filesystem use, and returns the name of its journal
// directory and the bytes of its journal.json: how tests plant a journal of ours.
func SealJournal(record []byte) (dir string, data []byte, err error) {
	key, err := txn.Key(afero.NewOsFs(), txn.Config{})
	if err != nil {
		return "", nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.DisallowUnknownFields()
	var rec txn.Record
	if err := dec.Decode(&rec); err != nil {
		return "", nil, err
	}
	dir = txn.JournalName(key, rec.ID)
	body, err := json.Marshal(&rec)
	if err != nil {
		return "", nil, err
	}
	return dir, txn.Seal(key, dir, body), nil
}
