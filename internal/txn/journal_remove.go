package txn

import (
	"cmp"
	"errors"
	"io/fs"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/overlap"
	"github.com/applypatch/applypatch/internal/turns"
)

// removeJournalDir removes a journal directory's files, then the directory.
func removeJournalDir(fsys afero.Fs, dir string) error {
	names, err := readDirNames(fsys, dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := removeNames(fsys, dir, names); err != nil {
		return err
	}
	if err := fsys.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// removeNames removes the files names of dir, a name already gone included, and
// returns the first failure. A journal of many files is removed by two goroutines where
// that is worth it (overlap.Worth): removing a backup often frees the replaced file's
// pages, which the two do side by side.
func removeNames(fsys afero.Fs, dir string, names []string) error {
	remove := func(names []string) error {
		for _, n := range names {
			if err := fsys.Remove(cleanpath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	if !overlap.Worth(fsys, len(names), removeSplitMin) {
		return remove(names)
	}
	var head, tail error
	turns.Halves(len(names), func(lo, hi int) {
		if err := remove(names[lo:hi]); lo == 0 {
			head = err
		} else {
			tail = err
		}
	})
	return cmp.Or(head, tail)
}

// removeSplitMin is the fewest files worth removing from two goroutines.
const removeSplitMin = 64
