package txn

import (
	"cmp"
	"errors"
	"io/fs"
	"runtime"
	"sync"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/splitfs"
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
// the filesystem is safe for concurrent use and there is a second processor: removing
// a backup often frees the replaced file's pages, which the two do side by side.
func removeNames(fsys afero.Fs, dir string, names []string) error {
	remove := func(names []string) error {
		for _, n := range names {
			if err := fsys.Remove(cleanpath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	if len(names) < removeSplitMin || runtime.GOMAXPROCS(0) < 2 || !splitfs.Concurrent(fsys) {
		return remove(names)
	}
	half := len(names) / 2
	var other error
	var wg sync.WaitGroup
	wg.Go(func() { other = remove(names[half:]) })
	err := remove(names[:half])
	wg.Wait()
	return cmp.Or(err, other)
}

// removeSplitMin is the fewest files worth removing from two goroutines.
const removeSplitMin = 64
