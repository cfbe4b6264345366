package applypatch

import (
	"io/fs"

	"github.com/applypatch/applypatch/internal/filestate"
)

// capturedState is the state a step's path was read in when its baseline was captured
// under this commit's lock: with nothing written since, that read is the check of the
// whole batch, and reading the file again would read the same bytes. It reports false
// where the capture kept no stamp of the baseline's file.
func (tx *txn) capturedState(st *step) (filestate.State, bool) {
	if !tx.captured {
		return filestate.State{}, false
	}
	s, ok := tx.stampOf(st)
	if !ok {
		return filestate.State{}, false
	}
	return filestate.State{Exists: true, Data: st.base.Bytes, Mode: st.base.Mode, Own: filestate.OwnerOf(s.Info)}, true
}

// unchanged is what a step's path holds just before its write when one look at its
// metadata proves it the file read before (see stamp): the baseline, without reading
// the bytes again. The look is seen when the fence's walk just took it (the same device
// and inode, reached from the path, prove the path still leads to the file read), else
// a Stat. It reports false when that cannot be proved; the caller reads.
func (tx *txn) unchanged(st *step, seen fs.FileInfo) (filestate.State, bool) {
	s, ok := tx.stampOf(st)
	if !ok {
		return filestate.State{}, false
	}
	fi := seen
	if fi == nil {
		var err error
		if fi, err = tx.fsys.Stat(st.name); err != nil {
			return filestate.State{}, false
		}
	}
	if !s.Proves(fi) {
		return filestate.State{}, false
	}
	return filestate.State{Exists: true, Data: st.base.Bytes, Mode: st.base.Mode, Own: filestate.OwnerOf(fi)}, true
}

// stampOf returns the stamp of the file whose bytes are the step's baseline: a regular
// file, read whole, of the baseline's size and mode.
func (tx *txn) stampOf(st *step) (filestate.Stamp, bool) {
	s, ok := tx.seen[st.name]
	b := st.base
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
func (tx *txn) relinked(st *step) {
	s, ok := tx.stampOf(st)
	if !ok {
		return
	}
	delete(tx.seen, st.name)
	if fi, err := tx.fsys.Stat(st.name); err == nil {
		if s, ok := s.Linked(fi); ok {
			tx.seen[st.name] = s
		}
	}
}
