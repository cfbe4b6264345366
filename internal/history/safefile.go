package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"

	"github.com/spf13/afero"
)

// The store's directory is the user's, outside any workspace, but a file planted there
// (by another program, or restored from a backup) must not carry the store's writes
// elsewhere: the store makes its directories itself and replaces anything else found at
// their names, writes each file to a fresh temporary name and renames it into place
// (which replaces a link found there instead of writing through it), and lists its
// directories without following a link or waiting on a FIFO (see openDir).

// EnsureDir makes the store's directory dir where it is missing, and replaces anything
// else found at its name: a symbolic link, a file, a FIFO.
func EnsureDir(fsys afero.Fs, dir string) error {
	if l, ok := fsys.(afero.Lstater); ok {
		fi, _, err := l.LstatIfPossible(dir)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil:
			if err := fsys.Remove(dir); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	return fsys.MkdirAll(dir, 0o700)
}

// WriteWhole writes data as the file name, whole or not at all: to a temporary name made
// afresh (never opening a file, link or FIFO already there), then renamed over name.
func WriteWhole(fsys afero.Fs, name string, data []byte) error {
	tmp := fmt.Sprintf("%s%s%016x", name, tmpInfix, rand.Uint64())
	f, err := fsys.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err != nil {
		fsys.Remove(tmp)
	}
	return err
}

// ReadSmall reads the file name, of at most limit bytes, as the store reads its own
// files: a regular file, not through a link, never waiting on a FIFO.
func ReadSmall(fsys afero.Fs, name string, limit int64) ([]byte, error) {
	f, err := fsys.OpenFile(name, openKept, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errNotSmall
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = errNotSmall
	}
	return b, err
}

// errNotSmall is the error of a file ReadSmall does not read.
var errNotSmall = errors.New("not a small regular file")

// tmpInfix joins a file's name and the random part of its temporary name.
const tmpInfix = ".tmp-"
