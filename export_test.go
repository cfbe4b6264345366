package applypatch

// Internals the external tests inspect.
type Change = change

var ParseOperation = parseOperation

// Changes returns the proposal's resolved operations, for tests that inspect them.
func (pr *Proposal) Changes() []*change { return pr.changes }

type RolledBackError = rolledBackError
