package applypatch

import "context"

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
