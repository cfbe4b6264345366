package applypatch

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
)

// A Snapshot is an expected-before state a host supplies for a path: what it last
// saw there. Hash is the hex SHA-256 of the bytes; an empty Hash checks presence only.
type Snapshot struct {
	Exists bool        `json:"exists"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	Hash   string      `json:"hash,omitempty"`
}

// A Proposal is a resolved patch: every path fenced and classified, every baseline
// captured, every hunk placed and every result derived. Nothing has been written. A
// review changes its selection, feedback and revisions; [Commit] writes it.
type Proposal struct {
	// Patch is the parsed payload.
	patch *Patch
	// Changes are the resolved operations, in payload order.
	changes []*change
	// Feedback is whole-patch feedback staged in review.
	feedback string

	fsys   afero.Fs
	opts   Options
	fenced *fence.Fence // the resolver and classes of F1–F4, built by Resolve
	// read holds what each baseline's file said of itself when its bytes were read;
	// readLocked is set when they were read under the commit's lock ([Apply]), so the
	// capture is the commit's check of the whole batch.
	read       filestate.Stamps
	readLocked bool
}

// A change is one resolved operation.
type change struct {
	// Op is the operation as parsed; its Hunks are mirrored, with their review state, in
	// Hunks.
	Op Operation
	// Class is the class of Op.Path; MoveClass of Op.MoveTo.
	Class, MoveClass Class
	// Base is the baseline of the path; Dest of the Move destination.
	Base, Dest filestate.Baseline
	// Hunks are the Update's hunks with their placements and review state.
	Hunks []*hunkChange
	// Selected is the review choice for an Add, a Delete or a Move, which are indivisible.
	// An Update's selection lives on its hunks.
	Selected bool
	// Feedback is feedback on the whole operation.
	Feedback string
	// Revised is set when a person replaced the operation's content in review.
	Revised bool

	name, moveName string // resolved names in the filesystem
	// parentErr and destParentErr are set when a parent of the path an Add or a Move
	// creates is a file on disk: an error unless an earlier operation removes it.
	parentErr, destParentErr error
	text                     *lines.Text
	codec                    *lines.Codec
	derived                  derivedResult
	// spare holds the regions validate found, whose room the content of a write step
	// takes, so that a large Update's regions are allocated once.
	spare []region
}

// A hunkChange is one hunk of an Update with where it landed and its review state.
type hunkChange struct {
	Hunk
	Place    match.Place
	Feedback string
	Selected bool
	Revised  bool // beside Selected: one word for both, of the thousands a large patch holds
}

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
