//go:build !linux

package txn

import "os"

// MoveTo moves nothing where renameat(2) between descriptors is not at hand: the
// history then writes the baselines' bytes itself.
func (k *Kept) MoveTo(to *os.File, name string) bool { return false }
