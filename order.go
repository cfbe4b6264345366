package applypatch

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"
)

// pathKind is what an earlier operation of the payload leaves at a path.
type pathKind uint8

const (
	pathFile   pathKind = iota + 1 // an Add or a Move destination creates a file
	pathDir                        // an Add creates a file below it
	pathAbsent                     // a Delete or a Move source removes it
)

// laterTree is the tree as the operations checked so far leave it: what they made of
// each resolved name, and which operation did.
type laterTree struct {
	fsys afero.Fs // the tree before the payload
	kind map[string]pathKind
	by   map[string]string // the authored path of the operation that made it so
}

// checkOrder checks every operation against the tree as the earlier operations of the
// payload leave it, so that Check refuses exactly what Commit would fail on: an Add
// below a file an earlier Add creates, an Add of a directory an earlier Add creates files
// in, an operation on a path an earlier one deleted or moved away. A path below a file
// on disk is fine only where an earlier operation removes that file.
func (pr *Proposal) checkOrder() []error {
	t := &laterTree{fsys: pr.files(), kind: map[string]pathKind{}, by: map[string]string{}}
	var errs []error
	for _, c := range pr.changes {
		if err := t.check(c); err != nil {
			errs = append(errs, err)
			continue
		}
		t.apply(c)
	}
	return errs
}

// check checks one change against the tree the earlier ones leave.
func (t *laterTree) check(c *change) error {
	if c.Op.Kind != OpAdd {
		if err := t.needsFile(c.name, c.Op.Path); err != nil {
			return err
		}
	}
	switch {
	case c.Op.Kind == OpAdd:
		return t.canCreate(c.name, c.Op.Path, c.parentErr)
	case c.Op.MoveTo != "":
		return t.canCreate(c.moveName, c.Op.MoveTo, c.destParentErr)
	}
	return nil
}

// needsFile refuses an operation on a path an earlier operation removed, or made a
// directory of.
func (t *laterTree) needsFile(name, authored string) error {
	switch t.kind[name] {
	case pathAbsent:
		return &FileError{Path: authored, Reason: FileMissing, Err: fmt.Errorf("an earlier operation of the payload (on %s) removes it", t.by[name])}
	case pathDir:
		return &FileError{Path: authored, Reason: FileIsDir, Err: fmt.Errorf("an earlier operation of the payload creates %s in it", t.by[name])}
	}
	return nil
}

// canCreate refuses to create a file at a path the earlier operations leave taken, or
// below a file.
func (t *laterTree) canCreate(name, authored string, parentErr error) error {
	switch t.kind[name] {
	case pathFile:
		return &FileError{Path: authored, Reason: FileExists, Err: fmt.Errorf("an earlier operation of the payload (on %s) creates it", t.by[name])}
	case pathDir:
		return &FileError{Path: authored, Reason: FileExists, Err: errors.New("an earlier operation of the payload creates " + t.by[name] + " in it, so it is a directory")}
	}
	removed := false
	up := filepath.ToSlash(authored)
	for d := filepath.Dir(name); d != filepath.Dir(d); d = filepath.Dir(d) {
		up = path.Dir(up)
		switch t.kind[d] {
		case pathFile:
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: t.by[d]}
		case pathAbsent:
			removed = true
			continue
		case pathDir:
			return nil
		}
		if removed {
			continue
		}
		fi, err := t.fsys.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && parentErr != nil:
			return parentErr // found when the path was read, with its cause
		case err == nil && localParent(up):
			// Some filesystems (afero's MemMapFs) report a path below a file as
			// missing rather than ENOTDIR: the file is found here instead.
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: up}
		case err == nil:
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: "a parent directory"}
		}
	}
	if parentErr != nil && !removed {
		return parentErr
	}
	return nil
}

// apply records what a change leaves.
func (t *laterTree) apply(c *change) {
	switch {
	case c.Op.Kind == OpAdd:
		t.create(c.name, c.Op.Path)
	case c.Op.Kind == OpDelete:
		t.set(c.name, pathAbsent, c.Op.Path)
	case c.Op.MoveTo != "":
		t.set(c.name, pathAbsent, c.Op.Path)
		t.create(c.moveName, c.Op.MoveTo)
	}
}

// create records a file and the directories above it.
func (t *laterTree) create(name, authored string) {
	t.set(name, pathFile, authored)
	for d := filepath.Dir(name); d != filepath.Dir(d); d = filepath.Dir(d) {
		if t.kind[d] == pathDir {
			break
		}
		t.set(d, pathDir, authored)
	}
}

// localParent reports whether an authored parent can be shown: it names a directory of
// the payload's own path, not the root or an escape.
func localParent(up string) bool {
	return up != "." && up != "/" && up != ".." && !strings.HasSuffix(up, "/..")
}

func (t *laterTree) set(name string, k pathKind, authored string) {
	t.kind[name], t.by[name] = k, authored
}
