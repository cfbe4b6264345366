package txn

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/splitfs"
)

// Kept is a final commit's journal directory, offered to the host before it is removed:
// it holds a backup of every baseline the commit replaced or removed (a hard link to the
// very file where the filesystem has them) and nothing else. A history keeps those
// baselines by moving the directory into its store, one rename instead of writing every
// baseline's bytes again, and saves the commit removing the backups one by one.
type Kept struct {
	// Backups names, for each step of the plan, its backup in the directory: "" where
	// the path had no baseline to back up (it did not exist, or it lay outside the
	// workspace, or it was a symbolic link).
	Backups []string
	// Shared is set when a backup is a hard link to a file that had other names besides
	// the path the commit replaced: a write through one of them changes the backup too.
	Shared bool

	fsys afero.Fs
	dir  string      // the journal directory's resolved name on fsys
	made fs.FileInfo // what it was when the commit made it
}

// kept is the offer of the running commit's journal directory.
func (tx *txn) kept() *Kept {
	k := &Kept{Backups: make([]string, len(tx.plan)), Shared: tx.jr.shared, fsys: tx.fsys, dir: tx.jr.dir, made: tx.jr.made}
	for i, e := range tx.jr.rec.Steps {
		k.Backups[i] = e.Backup
	}
	return k
}

// parent opens the directory that holds the journal directory on the operating system,
// by a descriptor, and says the journal directory's name in it: only where the commit's
// filesystem is the operating system's, directly or confined to a root (fs/rootfs).
func (k *Kept) parent() (*os.File, string, bool) {
	fsys, name := k.fsys, k.dir
	if s, ok := fsys.(*splitfs.FS); ok {
		fsys, name = s.Route(name)
	}
	var dir *os.File
	var err error
	switch fsys := fsys.(type) {
	case *afero.OsFs:
		dir, err = os.Open(filepath.Dir(name))
	case interface{ Root() *os.Root }:
		within := strings.TrimPrefix(filepath.Dir(name), string(filepath.Separator))
		if within == "" {
			within = "."
		}
		dir, err = fsys.Root().Open(within)
	default:
		return nil, "", false
	}
	if err != nil {
		return nil, "", false
	}
	return dir, filepath.Base(name), true
}
