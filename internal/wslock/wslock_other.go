//go:build !unix

package wslock

import (
	"context"
	"os"
	"path/filepath"
)

func identity(d *os.File) (any, error) {
	return filepath.Clean(d.Name()), nil
}

// ancestors opens the directories above d by name, the outermost first, up to and not
// including the volume's root: with no owner to compare, and no kernel lock taken, the
// in-process locks of this platform only.
func ancestors(d *os.File, key any, name string) []level {
	var up []level
	for p := filepath.Dir(name); p != name && p != filepath.Dir(p); name, p = p, filepath.Dir(p) {
		f, err := os.Open(p)
		if err != nil {
			break
		}
		up = append([]level{{f: f, key: p, name: p, shared: true}}, up...)
	}
	return up
}

// kernelLock has no kernel lock to take on this platform: the in-process lock stays.
func kernelLock(context.Context, level, *waiter) (func(), error) { return func() {}, nil }
