package txn

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/spf13/afero"
)

// relink puts a removed symbolic link back, where the filesystem has links.
func relink(fsys afero.Fs, target, name string) error {
	l, ok := fsys.(afero.Linker)
	if !ok {
		return afero.ErrNoSymlink
	}
	return l.SymlinkIfPossible(target, name)
}

// done is one started step of the journal: what the path held just before it, so that
// rollback can tell what this transaction wrote from what someone else wrote.
type done struct {
	step   *Step
	before filestate.State
	// inPlace is set when rename was impossible and the file was rewritten in place:
	// any prefix of the step's bytes, in any mode, may then be this transaction's.
	inPlace bool
}

// ours reports whether cur is a state this transaction's step left the path in.
func (d *done) ours(cur filestate.State) bool {
	st := d.step
	switch {
	case cur.Err != nil || cur.Dir:
		return false
	case st.Op == Remove:
		return !cur.Exists
	case !cur.Exists:
		return false
	case d.inPlace:
		return st.Body.HasPrefix(cur.Data)
	}
	return cur.Mode == st.Mode && st.Body.Equal(cur.Data)
}

// Why rollback left a path as it is.
const (
	reasonChanged  = "changed by someone else after this commit wrote it; left as they made it"
	reasonNotOwned = "the host no longer owns it; left as it is"
	reasonUnsaved  = "an open editor buffer of it has unsaved edits; left as this commit wrote it, and the buffer kept"
	reasonTemp     = "a temporary file this commit created; it could not be removed"
	reasonDir      = "a directory this commit created; it could not be removed"
	reasonDirFull  = "a directory this commit created; someone else put files in it"
)

// recoverable reports whether a later recovery may finish an incomplete rollback: some
// path failed to be restored, and none was left on purpose where a recovery, which
// cannot ask the host, would undo that choice (a path the host no longer owns, or one an
// editor holds unsaved edits of).
func recoverable(inc *Incomplete) bool {
	failed := false
	for _, r := range inc.Reasons {
		switch r {
		case reasonNotOwned, reasonUnsaved:
			return false
		case reasonChanged, reasonDirFull:
		default:
			failed = true
		}
	}
	return failed
}

// rollback restores every journaled path to what it held before its step, newest first:
// first the paths that did not exist, then it removes the temporary files and
// directories the transaction created, then it puts back the paths that existed,
// so a file removed to make way for a directory finds its place free again. A
// path that no longer holds what this transaction wrote was changed by someone else and
// is left alone; it, and anything that cannot be restored, makes the error an
// *Incomplete wrapping cause.
func (tx *txn) rollback(cause error) error {
	lost := map[string]string{}
	tx.restoreWhere(lost, func(d *done) bool { return !d.before.Exists })
	for _, t := range tx.tempsLeft() {
		tx.removeTemp(t.name)
	}
	for _, d := range slices.Backward(tx.dirs) {
		if reason := tx.removeDir(d.name); reason != "" {
			lost[tx.shown(d)] = reason
		}
	}
	tx.restoreWhere(lost, func(d *done) bool { return d.before.Exists })
	for _, t := range tx.tempsLeft() {
		tx.removeTemp(t.name)
	}
	for _, t := range tx.tempsLeft() {
		if cur := tx.read(t.name); cur.Exists || cur.Err != nil {
			lost[tx.shown(t)] = reasonTemp
		}
	}
	if len(lost) == 0 {
		return cause
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range lost {
			if !yield(p) {
				return
			}
		}
	})
	return &Incomplete{Cause: cause, Paths: paths, Reasons: lost}
}

// restore puts one journaled path back to what it held before its step and returns
// why it could not, or "".
func (tx *txn) restore(d *done) string {
	st := d.step
	cur := tx.readStep(st)
	if cur.Err != nil {
		cur = tx.readStep(st) // once more: a read may fail transiently
	}
	switch {
	case cur.Err != nil:
		return "it could not be read: " + fserr.Sanitize(cur.Err, st.Name, st.Path).Error()
	case cur.Same(d.before):
		return "" // the step never took effect
	case !tx.owns(st.Name):
		return reasonNotOwned
	case !d.ours(cur):
		return reasonChanged
	case tx.unsaved(st.Name):
		return reasonUnsaved // restoring under an edited buffer would lose either
	}
	var err error
	switch {
	case !d.before.Exists:
		err = tx.fsys.Remove(st.Name)
	case st.Base.IsLink():
		err = relink(tx.fsys, string(st.Base.Bytes), st.Name)
	default:
		if err = tx.restoreBackup(st); err != nil {
			var inPlace bool
			err = tx.replace(st, heldBytes(d.before.Data), d.before.Mode, d.before.Own, &inPlace, nil)
		}
	}
	if err != nil && !tx.readStep(st).Same(d.before) {
		return "restoring it failed: " + fserr.Sanitize(err, st.Name, st.Path).Error()
	}
	return ""
}

// removeDir removes a directory the transaction created when it is empty, and returns
// why it stays, or "". Some afero filesystems would remove a directory with its
// content, so emptiness is checked first.
func (tx *txn) removeDir(dir string) string {
	if _, err := tx.fsys.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	names, err := readDirNames(tx.fsys, dir)
	if err != nil {
		return reasonDir
	}
	if len(names) > 0 {
		return reasonDirFull
	}
	if err := tx.fsys.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return reasonDir
	}
	return ""
}

func readDirNames(fsys afero.Fs, dir string) ([]string, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// restoreWhere restores, newest first, the started steps that which selects, recording
// in lost each path it could not restore and why.
func (tx *txn) restoreWhere(lost map[string]string, which func(*done) bool) {
	for _, d := range slices.Backward(tx.done) {
		if !which(d) {
			continue
		}
		if reason := tx.restore(d); reason != "" {
			lost[d.step.Path] = reason
		}
	}
}
