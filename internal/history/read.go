package history

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// List returns the store's entries, oldest first, each with its undone mark. Files that
// are not entries of this store (a wrong name, a link, not sealed with the key, cut
// short, a name or state an undo could not trust) are skipped, never read as a record.
func (s *Store) List() ([]Entry, error) {
	names, err := s.names()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, n := range names {
		if e, err := s.readEntry(n); err == nil {
			out = append(out, e)
		}
	}
	return out, nil
}

// Undoable returns the newest entry not undone, reading no other; ok is false when every
// entry is undone or there is none. When that entry is damaged it returns a
// *DamagedError, never the entry before it.
func (s *Store) Undoable() (e Entry, ok bool, err error) { return s.pickEntry(true) }

// Redoable returns the entry undone last: the oldest of the undone entries that follow
// the newest one not undone. ok is false when there is none. When that entry is damaged
// it returns a *DamagedError.
func (s *Store) Redoable() (e Entry, ok bool, err error) { return s.pickEntry(false) }

// Picks reports the id of the entry an undo (undo) or a redo would revert, reading no
// entry: for a commit to check that what it reverts is still the one to.
func (s *Store) Picks(undo bool) (string, error) {
	names, err := s.names()
	if err != nil {
		return "", err
	}
	n, _ := pick(names, undo)
	return n.ID, nil
}

// pickEntry reads the entry an undo or a redo reverts. A damaged one is never passed
// over, which would revert another change than the user asked for: a *DamagedError says
// so, and RemoveDamaged clears the way.
func (s *Store) pickEntry(undo bool) (Entry, bool, error) {
	names, err := s.names()
	if err != nil {
		return Entry{}, false, err
	}
	n, ok := pick(names, undo)
	at, gap := s.unrecorded(names)
	switch {
	case undo && gap && (!ok || at.After(entryTime(s, n))):
		return Entry{}, false, &UnrecordedError{When: at, Left: ok}
	case !undo && gap && ok && at.After(s.undoneTime(n)):
		return Entry{}, false, nil // a change the history missed came after the undo: as a recorded one, it drops the redo
	}
	if !ok {
		return Entry{}, false, nil
	}
	e, err := s.readEntry(n)
	switch {
	case err == nil:
		return e, true, nil
	case !errors.Is(err, errDamaged):
		return Entry{}, false, fmt.Errorf("the history cannot read the record of the change %s: %w", n.ID, err)
	}
	sound := slices.DeleteFunc(names, func(n name) bool { _, err := s.readEntry(n); return errors.Is(err, errDamaged) })
	_, left := pick(sound, undo)
	return Entry{}, false, &DamagedError{ID: n.ID, Left: left}
}

// entryTime is when the entry n was recorded, by its file: the zero time when it cannot
// be read, so that a note of a missed change, which is newer, is not passed over.
func entryTime(s *Store, n name) time.Time {
	fi, err := s.fs.Stat(n.file)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// undoneTime is when the entry n was marked undone, by its mark: the zero time when it
// cannot be read.
func (s *Store) undoneTime(n name) time.Time {
	fi, err := s.fs.Stat(path.Join(s.undone(), n.ID))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// RemoveDamaged removes the store's damaged entry files, and counts them. Callers
// serialise it with Record, as they do SetUndone.
func (s *Store) RemoveDamaged() (int, error) {
	names, err := s.names()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, nm := range names {
		if _, err := s.readEntry(nm); !errors.Is(err, errDamaged) {
			continue
		}
		if err := s.fs.Remove(nm.file); err != nil {
			return n, fmt.Errorf("the history cannot be updated: %w", pathless(err))
		}
		n++
	}
	return n, nil
}

// A DamagedError is the entry an undo or a redo would revert found damaged: cut short,
// changed, or sealed with another key than this user's. It is never read as a record.
type DamagedError struct {
	ID   string // the id in the damaged entry's name
	Left bool   // whether another entry is left to revert once the damaged ones are removed
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the history's record of the change %s is damaged, or was not written by this user", e.ID)
}

// pick is the entry of names (oldest first) an undo reverts, the newest one not undone,
// or a redo, the oldest of the undone entries after the newest one not undone.
func pick(names []name, undo bool) (name, bool) {
	var found name
	ok := false
	for i := len(names) - 1; i >= 0; i-- {
		n := names[i]
		switch {
		case undo && !n.undone:
			return n, true
		case !undo && !n.undone:
			return found, ok
		case !undo:
			found, ok = n, true
		}
	}
	return found, ok
}

// errDamaged is an entry file that was read and is not a sound entry of this store.
var errDamaged = errors.New("the entry is damaged")

// readEntry opens one entry file and checks its trailer, seal and contents' places. A
// file that cannot be opened or read returns that error; one read and found unsound,
// errDamaged.
func (s *Store) readEntry(n name) (Entry, error) {
	f, err := s.fs.OpenFile(n.file, openKept, 0) // never a link's target, never waiting on a FIFO
	if isLink(err) {
		return Entry{}, errDamaged
	}
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return Entry{}, err
	case !fi.Mode().IsRegular() || fi.Size() < int64(len(entryMagic)):
		return Entry{}, errDamaged
	}
	size := fi.Size()
	head := make([]byte, len(entryMagic))
	tail := make([]byte, min(size, trailerLimit))
	if _, err := f.ReadAt(head, 0); err != nil {
		return Entry{}, err
	}
	if string(head) != entryMagic {
		return Entry{}, errDamaged
	}
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return Entry{}, err
	}
	sum, start, length, tlen, ok := trailer(tail)
	if !ok || length > headerLimit || start < int64(len(entryMagic)) || start+length != size-tlen {
		return Entry{}, errDamaged
	}
	body := make([]byte, length)
	if _, err := f.ReadAt(body, start); err != nil {
		return Entry{}, err
	}
	var e Entry
	if !hmac.Equal(sum, s.mac(body)) || decodeEntry(body, &e) != nil || !trusted(&e, start-int64(len(entryMagic))) ||
		e.Seq != n.Seq || e.ID != n.ID {
		return Entry{}, errDamaged
	}
	e.file, e.size, e.Undone = n.file, size, n.undone
	return e, nil
}

// trailer reads the entry file's last line: the MAC, where the JSON starts and its
// length, and the trailer's own length with the newline that ends the JSON.
func trailer(tail []byte) (sum []byte, start, length, tlen int64, ok bool) {
	if len(tail) < 2 || tail[len(tail)-1] != '\n' {
		return nil, 0, 0, 0, false
	}
	nl := bytes.LastIndexByte(tail[:len(tail)-1], '\n')
	if nl < 0 {
		return nil, 0, 0, 0, false
	}
	tlen = int64(len(tail) - nl)
	fields := strings.Fields(string(tail[nl+1 : len(tail)-1]))
	if len(fields) != 3 {
		return nil, 0, 0, 0, false
	}
	sum, err := hex.DecodeString(fields[0])
	start, err1 := strconv.ParseInt(fields[1], 10, 64)
	length, err2 := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || err1 != nil || err2 != nil || len(sum) != 32 || start < 0 || length < 0 {
		return nil, 0, 0, 0, false
	}
	return sum, start, length, tlen, true
}

// Content returns the bytes of the entry's content i, checked against its CRC-32C. The
// entry's contents are read once, on the first call, in one read.
func (s *Store) Content(e *Entry, i int) ([]byte, error) {
	if i >= 0 && i < len(e.Blobs) && e.Blobs[i].File != "" && e.file != "" {
		return s.keptContent(e, e.Blobs[i])
	}
	out, err := s.raw(e, i)
	if err == nil && Checksum(out) != e.Blobs[i].CRC {
		return nil, errors.New("the history holds a file's content that does not match its checksum")
	}
	return out, err
}

// raw returns the bytes of the entry's content i, held in the entry file, unchecked:
// for the payload, of which an added file's bytes are a part that the file's own
// checksum checks (see Store.Added), where summing the whole payload again for each
// file would cost the payload's length a file.
func (s *Store) raw(e *Entry, i int) ([]byte, error) {
	if i < 0 || i >= len(e.Blobs) || e.file == "" || e.Blobs[i].File != "" {
		return nil, fmt.Errorf("history: entry %s has no content %d", e.ID, i)
	}
	if e.data == nil {
		if err := s.load(e); err != nil {
			return nil, err
		}
	}
	b := e.Blobs[i]
	if b.Off+b.Len > int64(len(e.data)) {
		return nil, errors.New("the history holds a file's content past the end of its entry")
	}
	return e.data[b.Off : b.Off+b.Len : b.Off+b.Len], nil
}

// Loaded reads the contents an entry file holds, where they are not read yet: after
// it, on a filesystem safe for concurrent use, Content may be asked from several
// goroutines.
func (s *Store) Loaded(e *Entry) error {
	if e.data != nil || e.file == "" {
		return nil
	}
	return s.load(e)
}

// load reads the contents of an entry: the bytes between its magic line and its JSON.
func (s *Store) load(e *Entry) error {
	var end int64
	for _, b := range e.Blobs {
		if b.File == "" {
			end = max(end, b.Off+b.Len)
		}
	}
	f, err := s.fs.OpenFile(e.file, openKept, 0)
	if err != nil {
		return fmt.Errorf("the history has lost the entry: %w", pathless(err))
	}
	defer f.Close()
	data := make([]byte, end)
	if _, err := f.ReadAt(data, int64(len(entryMagic))); err != nil && !(errors.Is(err, io.EOF) && end == 0) {
		return fmt.Errorf("the history cannot read a file's content: %w", pathless(err))
	}
	e.data = data
	return nil
}

// keptContent reads a content from the entry's kept directory: a regular file of the
// length recorded, opened without following a link or waiting on a FIFO, and checked
// against its CRC-32C.
func (s *Store) keptContent(e *Entry, b Blob) ([]byte, error) {
	data, err := readKept(s.fs, path.Join(s.keptDir(e.ID, e.Kept), b.File), b.Len)
	if err != nil {
		return nil, err
	}
	if Checksum(data) != b.CRC {
		return nil, errors.New("the history holds a file's content that does not match its checksum")
	}
	return data, nil
}

// errNotRecorded is the error of a kept file that is not the one recorded: another
// kind of file, or another length.
var errNotRecorded = errors.New("the history holds a file's content that is not the one it recorded")

// errLost is the error of a kept file that cannot be opened.
func errLost(err error) error {
	return fmt.Errorf("the history has lost a file's content: %w", pathless(err))
}

// errUnread is the error of a kept file that cannot be read whole.
func errUnread(err error) error {
	return fmt.Errorf("the history cannot read a file's content: %w", pathless(err))
}

// readKeptFile is readKept through fsys's files.
func readKeptFile(fsys afero.Fs, name string, want int64) ([]byte, error) {
	f, err := fsys.OpenFile(name, openKept, 0)
	if err != nil {
		return nil, errLost(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != want {
		return nil, errNotRecorded
	}
	data := make([]byte, want)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, errUnread(err)
	}
	return data, nil
}

// SetUndone marks an entry undone, or not (a redo): a file of its own, made or removed
// whole, so the entry itself is never rewritten.
func (s *Store) SetUndone(id string, undone bool) error {
	return s.MarkUndone(id, undone, nil)
}

// MarkUndone is SetUndone that records, for an undo a review left some files of, the
// names of those files (File.Name): the files the undo did not revert, which a redo
// then leaves alone. The names are the mark's content.
func (s *Store) MarkUndone(id string, undone bool, keptBack []string) error {
	if !validID(id) {
		return fmt.Errorf("history: %q is not an entry id", id)
	}
	defer serialise(s.dir)()
	var data []byte
	if undone && len(keptBack) > 0 {
		var err error
		if data, err = json.Marshal(keptBack); err != nil {
			return err
		}
	}
	return s.setUndone(id, undone, data)
}

// maxMark is the largest undone mark read: the names of the files of one change.
const maxMark = 1 << 20

// KeptBack returns the names of the files of entry e that the undo marking it left as
// they were (see MarkUndone): only names of e's files, and none where the mark cannot
// be read or makes no sense, as for an undo that reverted every file.
func (s *Store) KeptBack(e *Entry) []string {
	data, err := ReadSmall(s.fs, path.Join(s.undone(), e.ID), maxMark)
	var names []string
	if err != nil || len(data) == 0 || json.Unmarshal(data, &names) != nil {
		return nil
	}
	return slices.DeleteFunc(names, func(n string) bool {
		return !slices.ContainsFunc(e.Files, func(f File) bool { return f.Name == n })
	})
}

// setUndone is SetUndone with the store's lock held: an undone mark holds kept, the
// names of the files the undo's review kept back, as JSON (or nothing).
func (s *Store) setUndone(id string, undone bool, kept []byte) error {
	mark := path.Join(s.undone(), id)
	if !undone {
		if err := s.fs.Remove(mark); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the history cannot be updated: %w", pathless(err))
		}
		return nil
	}
	if err := EnsureDir(s.fs, s.undone()); err != nil {
		return fmt.Errorf("the history cannot be updated: %w", pathless(err))
	}
	if err := WriteWhole(s.fs, mark, kept); err != nil {
		return fmt.Errorf("the history cannot be updated: %w", pathless(err))
	}
	return nil
}
