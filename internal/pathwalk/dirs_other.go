//go:build !linux || !(amd64 || arm64)

package pathwalk

import "github.com/spf13/afero"

// osDirsFor returns nil: only Linux on amd64 and arm64 looks names up relative to open
// directories here, so elsewhere every name is looked up in full.
func osDirsFor(afero.Fs) dirLookup { return nil }
