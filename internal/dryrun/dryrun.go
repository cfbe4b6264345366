// Package dryrun marks a context as a check only: whatever runs under it shows what it
// would do and records nothing, not even in the history. The command's --check sets it;
// a library host checks with [github.com/applypatch/applypatch.Proposal.Preview].
package dryrun

import "context"

// key is the context key of the mark.
type key struct{}

// With returns ctx marked as a check only.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// Is reports whether ctx is marked as a check only.
func Is(ctx context.Context) bool {
	on, _ := ctx.Value(key{}).(bool)
	return on
}
