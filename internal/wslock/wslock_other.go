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

// kernelLock has no kernel lock to take on this platform: the in-process lock stays.
func kernelLock(context.Context, *os.File) (func(), error) { return func() {}, nil }
