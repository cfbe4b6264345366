package applypatch

import (
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/spf13/afero"
)

// captureEntry reads a change's baseline: for a Delete whose path is a symbolic link,
// the link itself (its target text, with fs.ModeSymlink in the mode), since that is what
// is removed; otherwise what the path holds, links followed.
func (pr *Proposal) captureEntry(c *change) (filestate.Baseline, error) {
	if c.Op.Kind == OpDelete {
		if st := filestate.ReadLink(pr.files(), c.name); st.Err == nil && st.Exists {
			return filestate.Baseline{Exists: true, Mode: st.Mode, Bytes: st.Data}, nil
		}
	}
	return pr.capture(c.name, c.Op.Path)
}

// readStep reads what a step's path holds now: the link itself for the removal of a
// link, else what the path holds.
func (tx *txn) readStep(st *step) filestate.State {
	if st.base.IsLink() {
		if cur := filestate.ReadLink(tx.fsys, st.name); cur.Err != nil || cur.Exists {
			return cur
		}
	}
	return tx.readAgainst(st.name, st.base)
}

// relink puts a removed symbolic link back, where the filesystem has links.
func relink(fsys afero.Fs, target, name string) error {
	l, ok := fsys.(afero.Linker)
	if !ok {
		return afero.ErrNoSymlink
	}
	return l.SymlinkIfPossible(target, name)
}
