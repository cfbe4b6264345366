package applypatch

import (
	"io/fs"
	"time"
)

// A stamp is what a file's metadata said when its bytes were read: its info from the
// open file the bytes came from, and when the read began. A later look at the path
// that finds the same file with the same metadata (sameFile) proves the bytes
// unchanged without reading them again, unless the file was changed so shortly before
// the read that a write after it could have kept its change time (racy).
type stamp struct {
	fi fs.FileInfo
	at time.Time
	// orig is the info of the read itself when fi is a later look (see linked).
	orig fs.FileInfo
}

// racyWindow is longer than the coarsest clock tick a local filesystem stamps changes
// with (Linux stamps them with a coarse clock that lags by at most one tick, 10 ms at
// the lowest tick rate; FAT keeps change times to 10 ms): a file whose last change is
// older than this at the read gets a later change time from any write after the read.
const racyWindow = 50 * time.Millisecond

// proves reports whether info, looked up just now, shows the file of the stamp
// unchanged since its bytes were read.
func (s stamp) proves(info fs.FileInfo) bool {
	if s.fi == nil || info == nil || !sameFile(s.fi, info) {
		return false
	}
	read := s.first()
	changed, ok := changeTime(read)
	return ok && changed.Before(s.at.Add(-racyWindow)) && read.ModTime().Before(s.at.Add(-racyWindow))
}

// linked is the stamp of the same file once it has one link more (the journal's
// backup), looked up again as info: the link changes its link count and change time and
// nothing else. It reports false when info shows anything else changed.
func (s stamp) linked(info fs.FileInfo) (stamp, bool) {
	if s.fi == nil || info == nil || !sameButLinked(s.fi, info) {
		return stamp{}, false
	}
	return stamp{fi: info, at: s.at, orig: s.first()}, true
}

// first is the info of the read the stamp's bytes came from.
func (s stamp) first() fs.FileInfo {
	if s.orig != nil {
		return s.orig
	}
	return s.fi
}

// stamps are the stamps of the files a proposal or a transaction read, by resolved name.
type stamps map[string]stamp

// keep records what a file read at at said of itself; a filesystem whose infos carry no
// identity (sameFile cannot tell) records nothing.
func (m stamps) keep(name string, fi fs.FileInfo, at time.Time) {
	if m == nil {
		return
	}
	if _, ok := changeTime(fi); ok {
		m[name] = stamp{fi: fi, at: at}
	}
}

// capturedState is the state a step's path was read in when its baseline was captured
// under this commit's lock: with nothing written since, that read is the check of the
// whole batch, and reading the file again would read the same bytes. It reports false
// where the capture kept no stamp of the baseline's file.
func (tx *txn) capturedState(st *step) (state, bool) {
	if !tx.captured {
		return state{}, false
	}
	s, ok := tx.stampOf(st)
	if !ok {
		return state{}, false
	}
	return state{exists: true, data: st.base.Bytes, mode: st.base.Mode, own: ownerOf(s.fi)}, true
}

// unchanged is what a step's path holds just before its write when one look at its
// metadata proves it the file read before (see stamp): the baseline, without reading
// the bytes again. The look is seen when the fence's walk just took it (the same device
// and inode, reached from the path, prove the path still leads to the file read), else
// a Stat. It reports false when that cannot be proved; the caller reads.
func (tx *txn) unchanged(st *step, seen fs.FileInfo) (state, bool) {
	s, ok := tx.stampOf(st)
	if !ok {
		return state{}, false
	}
	fi := seen
	if fi == nil {
		var err error
		if fi, err = tx.fsys.Stat(st.name); err != nil {
			return state{}, false
		}
	}
	if !s.proves(fi) {
		return state{}, false
	}
	return state{exists: true, data: st.base.Bytes, mode: st.base.Mode, own: ownerOf(fi)}, true
}

// stampOf returns the stamp of the file whose bytes are the step's baseline: a regular
// file, read whole, of the baseline's size and mode.
func (tx *txn) stampOf(st *step) (stamp, bool) {
	s, ok := tx.seen[st.name]
	b := st.base
	switch {
	case !ok, !b.Exists, b.Dir, b.isLink(), b.Bytes == nil:
		return stamp{}, false
	case !s.fi.Mode().IsRegular(), s.fi.Size() != int64(len(b.Bytes)), modeOf(s.fi) != b.Mode:
		return stamp{}, false
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
		if s, ok := s.linked(fi); ok {
			tx.seen[st.name] = s
		}
	}
}
