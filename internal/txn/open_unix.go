//go:build unix

package txn

import (
	"syscall"
)

// Flags that open a journal's files without following a link at the last component or
// blocking on a FIFO.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)
