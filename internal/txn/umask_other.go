//go:build !linux

package txn

import "io/fs"

// processUmask is unknown on this platform: temporary files get their mode after they
// are written.
func processUmask() (fs.FileMode, bool) { return 0, false }
