//go:build !unix

package fence

import "io/fs"

// fileID is a file's identity, which this platform's FileInfo does not carry.
type fileID struct{}

// identity cannot tell a file's identity here.
func identity(fs.FileInfo) (fileID, bool) { return fileID{}, false }
