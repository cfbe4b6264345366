package splitfs

import (
	"io/fs"

	"github.com/spf13/afero"
)

// named wraps an opened file so that it reports the caller's name, and keeps its Chmod
// when it has one, so a mode is set on the open file rather than by name again.
func named(f afero.File, err error) func(name string) (afero.File, error) {
	return func(name string) (afero.File, error) {
		if err != nil {
			return nil, renamed(err, name)
		}
		nf := &namedFile{File: f, name: name}
		if _, ok := f.(fileChmodder); ok {
			return &chmodNamedFile{nf}, nil
		}
		return nf, nil
	}
}

// namedFile is a file opened through an FS, named as the caller named it.
type namedFile struct {
	afero.File
	name string
}

func (f *namedFile) Name() string { return f.name }

// fileChmodder is an open file whose mode can be set through it.
type fileChmodder interface{ Chmod(fs.FileMode) error }

// chmodNamedFile is a namedFile whose file has Chmod.
type chmodNamedFile struct{ *namedFile }

func (f *chmodNamedFile) Chmod(mode fs.FileMode) error {
	return renamed(f.File.(fileChmodder).Chmod(mode), f.name)
}
