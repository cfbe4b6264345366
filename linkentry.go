package applypatch

import (
	"io/fs"
	"path/filepath"

	"github.com/spf13/afero"
)

// resolveEntry resolves name as an entry of its directory: its parents are followed, a
// final symbolic link is not. It is what a Delete removes: the link itself, as rm and git
// do, never the file it points to.
func (r *resolver) resolveEntry(dir, name string) (resolution, error) {
	base := filepath.Base(name)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return r.resolve(dir, name) // names a directory the walk must reach
	}
	res, err := r.resolve(dir, filepath.Dir(name))
	if err != nil {
		return resolution{}, err
	}
	res.name, res.info = filepath.Join(res.name, base), nil
	return res, nil
}

// captureEntry reads a change's baseline: for a Delete whose path is a symbolic link,
// the link itself (its target text, with fs.ModeSymlink in the mode), since that is what
// is removed; otherwise what the path holds, links followed.
func (pr *Proposal) captureEntry(c *change) (baseline, error) {
	if c.Op.Kind == OpDelete {
		if st := readLinkState(pr.files(), c.name); st.err == nil && st.exists {
			return baseline{Exists: true, Mode: st.mode, Bytes: st.data}, nil
		}
	}
	return pr.capture(c.name, c.Op.Path)
}

// readStep reads what a step's path holds now: the link itself for the removal of a
// link, else what the path holds.
func (tx *txn) readStep(st *step) state {
	if st.base.isLink() {
		if cur := readLinkState(tx.fsys, st.name); cur.err != nil || cur.exists {
			return cur
		}
	}
	return tx.readAgainst(st.name, st.base)
}

// readLinkState reads a symbolic link as a state: its target text as the data, its mode
// with fs.ModeSymlink. A path that is no link (or a filesystem without links) reads as
// absent, so the caller reads it as a file.
func readLinkState(fsys afero.Fs, name string) state {
	ls, ok := fsys.(afero.Lstater)
	rl, ok2 := fsys.(afero.LinkReader)
	if !ok || !ok2 {
		return state{}
	}
	fi, lstatted, err := ls.LstatIfPossible(name)
	if err != nil || !lstatted || fi.Mode()&fs.ModeSymlink == 0 {
		return state{}
	}
	target, err := rl.ReadlinkIfPossible(name)
	if err != nil {
		return state{err: err}
	}
	return state{exists: true, data: []byte(target), mode: fs.ModeSymlink | fi.Mode().Perm()}
}

// relink puts a removed symbolic link back, where the filesystem has links.
func relink(fsys afero.Fs, target, name string) error {
	l, ok := fsys.(afero.Linker)
	if !ok {
		return afero.ErrNoSymlink
	}
	return l.SymlinkIfPossible(target, name)
}
