//go:build !unix

package history

import "os"

// openKept are the flags a kept baseline is opened with; this platform has none against
// links and FIFOs, and the check of the open file's info refuses them before a read.
const openKept = os.O_RDONLY
