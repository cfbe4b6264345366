//go:build unix

package history

import "syscall"

// openKept are the flags a kept baseline is opened with: without following a link at
// the last component or blocking on a FIFO.
const openKept = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
