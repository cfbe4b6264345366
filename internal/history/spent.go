package history

import (
	"os"
	"path"

	"github.com/spf13/afero"
)

// spentName is the directory, in a store, of the journal directories that undos and
// redos handed over once final (see SpentDir).
const spentName = "spent"

// SpentDir opens, making it where it is missing, the directory an undo's or a redo's
// commit moves its journal directory into once it is final: the backups in it are of
// no further use, and RemoveSpent removes them later, beside another commit's work,
// rather than one by one before the undo returns. It refuses a store that is not on the
// operating system's filesystem, where no such move can be made.
func (s *Store) SpentDir() (*os.File, error) { return s.moveTarget(path.Join(s.dir, spentName)) }

// HasSpent reports whether the store in dir, on fsys, has a spent directory, which
// RemoveSpent would look into: most have none, and a commit need not start a goroutine
// to find that out.
func HasSpent(fsys afero.Fs, dir string) bool {
	_, err := fsys.Stat(path.Join(dir, spentName))
	return err == nil
}

// RemoveSpent removes, on fsys, what the spent directory of the store in dir holds, then
// the directory itself once empty, so that HasSpent finds none until an undo hands one
// over again (or where the move failed, as across filesystems, never). Each directory
// there is a finished commit's, so any may go at any time; one moved in meanwhile may
// stay, for the next time (a move into the directory just removed fails, and that undo
// removes its journal itself). A link or a file in the spent directory's place is left
// alone.
func RemoveSpent(fsys afero.Fs, dir string) {
	spent := path.Join(dir, spentName)
	list, err := dirEntries(fsys, spent)
	if err != nil {
		return
	}
	for _, d := range list {
		fsys.RemoveAll(path.Join(spent, d.Name()))
	}
	fsys.Remove(spent) // fails, and keeps it, if one was moved in meanwhile
}
