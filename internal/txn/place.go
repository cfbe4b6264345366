package txn

import (
	"errors"
	"io/fs"

	"github.com/applypatch/applypatch/internal/splitfs"
)

// placeNew puts the temporary file tmp at the path of a step that creates it without
// replacing a file another program created there since the check just before the step:
// a rename that refuses a name that exists (renameat2's RENAME_NOREPLACE), or where the
// filesystem has none, a hard link, which fails on a name that exists too, after which
// the temporary name is removed (one that cannot be stays listed for rollback to
// remove). A path taken meanwhile is a conflict, and the step did not take effect.
//
// ok is false, with nothing done, where the filesystem has neither (afero's in-memory
// one, layers such as BasePathFs, filesystems that refuse both): the caller renames,
// and the check just before the step is then the only guard.
func (tx *txn) placeNew(st *Step, tmp string) (ok bool, err error) {
	if !tx.noExclusiveRename {
		switch err = splitfs.RenameNoReplace(tx.fsys, tmp, st.Name); {
		case err == nil:
			tx.forgetTemp(tmp)
			return true, nil
		case !linkImpossible(err):
			return true, tx.notPlaced(st, tmp, err)
		}
		tx.noExclusiveRename = true // asked once a commit: the answer is the filesystem's
	}
	switch err = splitfs.Link(tx.fsys, tmp, st.Name); {
	case err == nil:
		return true, tx.removeTemp(tmp)
	case linkImpossible(err):
		return false, nil
	}
	return true, tx.notPlaced(st, tmp, err)
}

// notPlaced is the error of a creating step whose file could not be put at its path:
// the conflict of a path another program took, or the failure itself. The temporary
// file is removed; one that stays is removed by rollback, or reported.
func (tx *txn) notPlaced(st *Step, tmp string, err error) error {
	tx.removeTemp(tmp)
	if errors.Is(err, fs.ErrExist) {
		return &Conflict{Reason: Changed, Paths: []string{st.Path}}
	}
	return err
}

// creates reports a step that writes a file where its baseline had none, and which the
// check just before it can leave to placing the file: the rename or the hard link that
// places it fails on a name that exists. A host's expectations of such a path were
// checked against its absence before the first write, and absence is all there is to
// check again.
func creates(st *Step) bool {
	return st.Op == Write && !st.Base.Exists && !st.Base.IsLink()
}

// stillAbsent is the check just before a creating step where the file cannot be placed
// by a rename that refuses a name or a hard link: a path that exists now, a symbolic
// link (which a read would follow) among what may be there, is a conflict, and the
// rename is not made.
func (tx *txn) stillAbsent(st *Step) error {
	if fi, err := lstat(tx.fsys, st.Name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &Conflict{Reason: Changed, Paths: []string{st.Path}}
	}
	switch cur := tx.readStep(st); {
	case cur.Err != nil:
		return tx.unreadable(st, cur.Err)
	case cur.Exists:
		return &Conflict{Reason: Changed, Paths: []string{st.Path}}
	}
	return nil
}

// linkImpossible reports a hard link, or a rename that refuses a name, that the
// filesystem cannot make at all, as opposed to one that failed.
func linkImpossible(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || renameImpossible(err)
}
