package filestate

import (
	"io/fs"
	"time"
)

// A Stamp is what a file's metadata said when its bytes were read: its info from the
// open file the bytes came from, and when the read began. A later look at the path
// that finds the same file with the same metadata (sameFile) proves the bytes
// unchanged without reading them again, unless the file was changed so shortly before
// the read that a write after it could have kept its change time (racy).
type Stamp struct {
	Info fs.FileInfo
	at   time.Time
	// orig is the info of the read itself when fi is a later look (see linked).
	orig fs.FileInfo
}

// RacyWindow is longer than the coarsest clock tick a local filesystem stamps changes
// with (Linux stamps them with a coarse clock that lags by at most one tick, 10 ms at
// the lowest tick rate; FAT keeps change times to 10 ms): a file whose last change is
// older than this at the read gets a later change time from any write after the read.
const RacyWindow = 50 * time.Millisecond

// Proves reports whether info, looked up just now, shows the file of the stamp
// unchanged since its bytes were read.
func (s Stamp) Proves(info fs.FileInfo) bool {
	if s.Info == nil || info == nil || !sameFile(s.Info, info) {
		return false
	}
	read := s.first()
	changed, ok := ChangeTime(read)
	return ok && changed.Before(s.at.Add(-RacyWindow)) && read.ModTime().Before(s.at.Add(-RacyWindow))
}

// Linked is the stamp of the same file once it has one link more (the journal's
// backup), looked up again as info: the link changes its link count and change time and
// nothing else. It reports false when info shows anything else changed.
func (s Stamp) Linked(info fs.FileInfo) (Stamp, bool) {
	if s.Info == nil || info == nil || !sameButLinked(s.Info, info) {
		return Stamp{}, false
	}
	return Stamp{Info: info, at: s.at, orig: s.first()}, true
}

// first is the info of the read the stamp's bytes came from.
func (s Stamp) first() fs.FileInfo {
	if s.orig != nil {
		return s.orig
	}
	return s.Info
}

// Stamps are the stamps of the files a proposal or a transaction read, by resolved name.
type Stamps map[string]Stamp

// Keep records what a file read at at said of itself; a filesystem whose infos carry no
// identity (sameFile cannot tell) records nothing.
func (m Stamps) Keep(name string, fi fs.FileInfo, at time.Time) {
	if m == nil {
		return
	}
	if _, ok := ChangeTime(fi); ok {
		m[name] = Stamp{Info: fi, at: at}
	}
}
