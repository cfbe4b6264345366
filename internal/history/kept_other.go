//go:build !unix

package history

import (
	"os"

	"github.com/spf13/afero"
)

// openKept are the flags an entry and a kept baseline are opened with; this platform has
// none against links and FIFOs, and the check of the open file's info refuses them before
// a read.
const openKept = os.O_RDONLY

// openDir are the flags a directory of the store is listed with.
const openDir = os.O_RDONLY

// readKept reads the kept file name of the length want: a regular file, never a link.
func readKept(fsys afero.Fs, name string, want int64) ([]byte, error) {
	return readKeptFile(fsys, name, want)
}

// isLink reports whether opening a file with openKept failed because it is a symbolic
// link; this platform's open follows links, and the file read is then checked whole.
func isLink(error) bool { return false }
