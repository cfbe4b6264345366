//go:build unix && !linux

package wslock

import (
	"errors"
	"os"
	"path/filepath"
)

// openParent opens the directory above d for reading, by name: the platform's syscall
// package has no openat. A name that is not absolute cannot be followed up.
func openParent(d *os.File, name string) (*os.File, error) {
	if !filepath.IsAbs(name) {
		return nil, errors.New("no absolute name to follow up")
	}
	return os.Open(name)
}

// holder finds no holder: only Linux lists its file locks (in /proc/locks).
func holder(dirKey) int { return 0 }
