//go:build !unix

package txn

// This platform has no flags for these; the checks of the file's info still refuse a
// link or a special file before it is read.
const (
	oNoFollow = 0
	oNonBlock = 0
)
