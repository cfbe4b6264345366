//go:build !linux || !(amd64 || arm64)

package pathwalk

import (
	"io/fs"

	"github.com/spf13/afero"
)

// dirLookup looks names up relative to directories held open (see walk.anchor); only
// Linux on amd64 and arm64 has one here, so elsewhere every name is looked up in full.
type dirLookup interface {
	openDir(at int, name string) (int, error)
	lstatAt(at int, name string) (fs.FileInfo, error)
	closeDir(fd int)
}

const atCwd = -100

func osDirsFor(afero.Fs) dirLookup { return nil }
