package applypatch

// Internals the external tests inspect.
type Change = change

// Changes returns the proposal's resolved operations, for tests that inspect them.
func (pr *Proposal) Changes() []*change { return pr.changes }

type RolledBackError = rolledBackError

// OwnerFunc lets the external tests name an OwnerPredicate from a function.
type OwnerFunc = ownerFunc
