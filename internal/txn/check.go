package txn

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"slices"
	"syscall"
	"time"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/spf13/afero"
)

// readStep reads what a step's path holds now: the link itself for the removal of a
// link, else what the path holds.
func (tx *txn) readStep(st *Step) filestate.State {
	if st.Base.IsLink() {
		if cur := filestate.ReadLink(tx.fsys, st.Name); cur.Err != nil || cur.Exists {
			return cur
		}
	}
	return tx.readAgainst(st.Name, st.Base)
}

// precheck checks every step of the batch before anything is written: each path must be
// owned by the host and still hold its baseline and any snapshot the host expects.
//
// It returns what each step's path holds, for the journal; a path whose owner or group
// this process could not keep on a rewritten file is refused.
func (tx *txn) precheck() ([]filestate.State, error) {
	var lost []string
	stale := &Conflict{Reason: Changed}
	owners := &Conflict{Reason: Owner, Reasons: map[string]string{}}
	before := make([]filestate.State, len(tx.plan))
	for i, st := range tx.plan {
		if !tx.owns(st.Name) {
			lost = appendNew(lost, st.Path)
			continue
		}
		cur, ok := tx.capturedState(st)
		if !ok {
			// The look that proves a file unchanged just before its write proves it here
			// too; only a file it cannot prove so is read again.
			cur, ok = tx.unchanged(st, nil)
		}
		if !ok {
			cur = tx.readStep(st)
		}
		if cur.Err != nil {
			return nil, tx.unreadable(st, cur.Err)
		}
		before[i] = cur
		tx.check(st, cur, stale)
		tx.keeps(st, cur, owners)
	}
	switch {
	case len(lost) > 0:
		return nil, &Conflict{Reason: NotOwned, Paths: lost}
	case len(stale.Paths) > 0:
		return nil, stale
	case len(owners.Paths) > 0:
		return nil, owners
	}
	tx.ownerOfWrites(before)
	return before, nil
}

// keeps adds a path to the error when its file would be rewritten and this process
// cannot give the new file the old one's owner and group.
func (tx *txn) keeps(st *Step, cur filestate.State, e *Conflict) {
	if st.Op != Write || !cur.Exists {
		return
	}
	if reason := filestate.KeepOwner(cur.Own); reason != "" {
		e.Paths = appendNew(e.Paths, st.Path)
		e.Reasons[st.Path] = reason
	}
}

// ownerOfWrites gives each write step the owner to keep: the replaced file's, or for a
// Move's destination the source's, and keeps the link count that decides whether a
// file may be rewritten in place.
func (tx *txn) ownerOfWrites(before []filestate.State) {
	for i, st := range tx.plan {
		switch {
		case st.Op != Write:
		case before[i].Exists:
			st.owner = before[i].Own
		case st.From != "":
			for j, src := range tx.plan {
				if src.Name == st.From && before[j].Exists {
					st.owner = before[j].Own
					if reason := filestate.KeepOwner(st.owner); reason != "" {
						st.owner = filestate.Owner{} // the new file is this process's, as an Add's
					}
				}
			}
		}
	}
}

// check adds a step's path to the conflict when the path no longer holds the step's
// baseline, or fails a snapshot the host expects for it.
func (tx *txn) check(st *Step, cur filestate.State, conflict *Conflict) {
	if !cur.Is(st.Base) {
		conflict.Paths = appendNew(conflict.Paths, st.Path)
		return
	}
	if !cur.SatisfiesAll(tx.expected[st.Name]) {
		conflict.Paths = appendNew(conflict.Paths, st.Path)
		conflict.Expected = appendNew(conflict.Expected, st.Path)
	}
}

// unreadable reports a path whose state cannot be checked: it is not written.
func (tx *txn) unreadable(st *Step, err error) error {
	return filestate.Unreadable(tx.fsys, st.Name, st.Path, err)
}

// absent reports a path that does not exist: missing, or below a file (ENOTDIR), which
// an earlier step of the plan may remove.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// read returns what a path holds now.
func (tx *txn) read(name string) filestate.State {
	fi, err := tx.fsys.Stat(name)
	switch {
	case absent(err):
		return filestate.State{}
	case err != nil:
		return filestate.State{Err: err}
	case fi.IsDir():
		return filestate.State{Exists: true, Dir: true, Mode: filestate.ModeOf(fi)}
	}
	b, err := afero.ReadFile(tx.fsys, name)
	if err != nil {
		return filestate.State{Err: err}
	}
	return filestate.State{Exists: true, Data: b, Mode: filestate.ModeOf(fi), Own: filestate.OwnerOf(fi), Info: fi}
}

// readAgainst returns what a path holds now, like read, but when it still holds the
// baseline's bytes it compares them in chunks and shares the baseline's copy, so a
// check of a large unchanged file allocates nothing.
func (tx *txn) readAgainst(name string, b filestate.Baseline) filestate.State {
	if b.Bytes == nil {
		return tx.read(name)
	}
	at := time.Now()
	f, err := tx.fsys.Open(name)
	if err != nil {
		return tx.read(name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(b.Bytes)) {
		return tx.read(name)
	}
	if same, err := sameContent(f, b.Bytes); err != nil || !same {
		return tx.read(name)
	}
	tx.seen.Keep(name, fi, at)
	return filestate.State{Exists: true, Data: b.Bytes, Mode: filestate.ModeOf(fi), Own: filestate.OwnerOf(fi), Info: fi}
}

// sameContent reports whether f holds exactly want, reading it in chunks.
func sameContent(f io.Reader, want []byte) (bool, error) {
	buf := make([]byte, min(64<<10, len(want)+1))
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return len(want) == 0, nil
		case err != nil:
			return false, err
		}
	}
}

// capturedState is the state a step's path was read in when its baseline was captured
// under this commit's lock: with nothing written since, that read is the check of the
// whole batch, and reading the file again would read the same bytes, or find the same
// absence where the step creates the file. It reports false where the capture kept no
// stamp of the baseline's file.
func (tx *txn) capturedState(st *Step) (filestate.State, bool) {
	switch {
	case !tx.captured:
		return filestate.State{}, false
	case creates(st):
		return filestate.State{}, true
	}
	s, ok := tx.stampOf(st)
	if !ok {
		return filestate.State{}, false
	}
	return filestate.State{Exists: true, Data: st.Base.Bytes, Mode: st.Base.Mode, Own: filestate.OwnerOf(s.Info), Info: s.Info}, true
}

// unchanged is what a step's path holds just before its write when one look at its
// metadata proves it the file read before (see stamp): the baseline, without reading
// the bytes again. The look is seen when the fence's walk just took it (the same device
// and inode, reached from the path, prove the path still leads to the file read), else
// a Stat. It reports false when that cannot be proved; the caller reads.
func (tx *txn) unchanged(st *Step, seen fs.FileInfo) (filestate.State, bool) {
	s, ok := tx.stampOf(st)
	if !ok {
		return filestate.State{}, false
	}
	fi := seen
	if fi == nil {
		var err error
		if fi, err = tx.fsys.Stat(st.Name); err != nil {
			return filestate.State{}, false
		}
	}
	if !s.Proves(fi) {
		return filestate.State{}, false
	}
	return filestate.State{Exists: true, Data: st.Base.Bytes, Mode: st.Base.Mode, Own: filestate.OwnerOf(fi), Info: fi}, true
}

// stampOf returns the stamp of the file whose bytes are the step's baseline: a regular
// file, read whole, of the baseline's size and mode.
func (tx *txn) stampOf(st *Step) (filestate.Stamp, bool) {
	s, ok := tx.seen[st.Name]
	b := st.Base
	switch {
	case !ok, !b.Exists, b.Dir, b.IsLink(), b.Bytes == nil:
		return filestate.Stamp{}, false
	case !s.Info.Mode().IsRegular(), s.Info.Size() != int64(len(b.Bytes)), filestate.ModeOf(s.Info) != b.Mode:
		return filestate.Stamp{}, false
	}
	return s, true
}

// relinked looks at a step's file again after the journal linked its backup, so the
// check just before the step compares with the file as the link left it. Between that
// look and the check any write changes the modification time, which must still be the
// one the bytes were read with; a write that puts an earlier modification time back in
// the same clock tick as this look is the one change it cannot see.
func (tx *txn) relinked(st *Step) {
	s, ok := tx.stampOf(st)
	if !ok {
		return
	}
	delete(tx.seen, st.Name)
	if fi, err := tx.fsys.Stat(st.Name); err == nil {
		if s, ok := s.Linked(fi); ok {
			tx.seen[st.Name] = s
		}
	}
}

// appendNew appends s to list unless list has it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
