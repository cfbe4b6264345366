//go:build !unix

package applypatch

import "io/fs"

// fileIdentity is empty where the system has no inode to tell a copy from its original:
// the workspace's real path alone names its history.
func fileIdentity(fs.FileInfo) string { return "" }
