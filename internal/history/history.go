// Package history keeps the record of committed changes that an undo reads: for each
// commit, what every path held before it and what the commit left there, with the
// contents stored once by hash. An entry is whole or absent after a crash, the store is
// bounded by entry count and bytes (oldest dropped first), and every entry is sealed
// with a key, so a store copied in, planted or cut short is never read as a record.
//
// It never touches the workspace and never decides what an undo may do: it records and
// returns facts, checked (seal, names, hashes) before they are returned.
package history

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/afero"
)

// A State is what a path holds: presence, mode and, for a file, its size and the hex
// SHA-256 of its bytes.
type State struct {
	Exists bool        `json:"exists"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	Size   int64       `json:"size,omitempty"`
	Hash   string      `json:"hash,omitempty"`
}

// A File is one path a commit changed: as authored, as a clean slash-separated name
// relative to the workspace, and its states before and after.
type File struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	Before State  `json:"before"`
	After  State  `json:"after"`
}

// An Entry is one commit: its id and sequence number in the store, when it ended, the
// payload, its files and tallies, and whether it was undone since.
type Entry struct {
	ID      string    `json:"id"`
	Seq     int       `json:"seq"`
	Time    time.Time `json:"time"`
	Payload string    `json:"payload"`
	Files   []File    `json:"files"`
	Added   int       `json:"added"`
	Removed int       `json:"removed"`
	Undone  bool      `json:"-"`
}

// Limits bound a store: the entries it keeps and the bytes of entries and contents.
type Limits struct {
	Entries int
	Bytes   int64
}

// DefaultLimits keep the last hundred commits within 256 MiB: a working session's worth
// of undo, and a fraction of what one shadow repository of a large tree takes.
var DefaultLimits = Limits{Entries: 100, Bytes: 256 << 20}

// A Store is a history directory on a filesystem.
type Store struct {
	fs     afero.Fs
	dir    string
	key    []byte
	limits Limits
}

// Open returns the store in dir of fsys, sealed with key; zero limits are the defaults.
// Nothing is created until the first Record. Callers serialise Record, SetUndone and
// pruning per store (a commit's workspace lock does).
func Open(fsys afero.Fs, dir string, key []byte, limits Limits) *Store {
	if limits.Entries <= 0 {
		limits.Entries = DefaultLimits.Entries
	}
	if limits.Bytes <= 0 {
		limits.Bytes = DefaultLimits.Bytes
	}
	return &Store{fs: fsys, dir: dir, key: key, limits: limits}
}

// entryMagic starts every entry file; its MAC and the entry's JSON follow.
const entryMagic = "applypatch history 1\n"

// entryLimit bounds the entry file a store reads.
const entryLimit = 64 << 20

// entryName is an entry file's name: its sequence number, zero-padded so that names sort
// as entries do, and its id.
var entryName = regexp.MustCompile(`^([0-9]{10})-([0-9a-f]{12,64})\.json$`)

// hashName is a content's file name: its hex SHA-256.
var hashName = regexp.MustCompile(`^[0-9a-f]{64}$`)

func (s *Store) entries() string { return path.Join(s.dir, "entries") }
func (s *Store) blobs() string   { return path.Join(s.dir, "blobs") }
func (s *Store) undone() string  { return path.Join(s.dir, "undone") }

// Hash is the hex SHA-256 of b, the name contents are stored under.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Record adds an entry, after the contents it names: contents maps each Before hash to
// its bytes (what an undo writes back). It takes the next sequence number, drops the
// entries that could be redone (an undone entry is replaced by the new line of history),
// then prunes the oldest entries past the limits.
func (s *Store) Record(e *Entry, contents map[string][]byte) error {
	for _, dir := range []string{s.entries(), s.blobs(), s.undone()} {
		if err := s.fs.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("the history cannot be created: %w", err)
		}
	}
	for hash, b := range contents {
		if hash != Hash(b) {
			return fmt.Errorf("history: content %s does not have that hash", hash)
		}
		if err := s.writeOnce(path.Join(s.blobs(), hash), b); err != nil {
			return err
		}
	}
	list, err := s.List()
	if err != nil {
		return err
	}
	if list, err = s.dropUndone(list); err != nil {
		return err
	}
	e.Seq = 1
	if len(list) > 0 {
		e.Seq = list[len(list)-1].Seq + 1
	}
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	sealed := entryMagic + hex.EncodeToString(s.mac(body)) + "\n" + string(body)
	name := fmt.Sprintf("%010d-%s.json", e.Seq, e.ID)
	if !entryName.MatchString(name) {
		return fmt.Errorf("history: the entry id %q is not lowercase hex", e.ID)
	}
	if err := s.writeOnce(path.Join(s.entries(), name), []byte(sealed)); err != nil {
		return err
	}
	return s.prune(append(list, *e))
}

// mac is the entry's MAC under the store's key.
func (s *Store) mac(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, "history entry\n")
	m.Write(body)
	return m.Sum(nil)
}

// writeOnce writes name whole or not at all: a temporary file renamed into place. A
// content file already there is the same content, by its name.
func (s *Store) writeOnce(name string, b []byte) error {
	if _, err := s.fs.Stat(name); err == nil {
		return nil
	}
	tmp := name + ".tmp-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := afero.WriteFile(s.fs, tmp, b, 0o600); err != nil {
		s.fs.Remove(tmp)
		return fmt.Errorf("the history cannot be written: %w", err)
	}
	if err := s.fs.Rename(tmp, name); err != nil {
		s.fs.Remove(tmp)
		return fmt.Errorf("the history cannot be written: %w", err)
	}
	return nil
}

// List returns the store's entries, oldest first, each with its undone mark. Files that
// are not entries of this store (a wrong name, a link, not sealed with the key, cut
// short, a name or state an undo could not trust) are skipped, never read as a record.
func (s *Store) List() ([]Entry, error) {
	names, err := afero.ReadDir(s.fs, s.entries())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the history cannot be read: %w", err)
	}
	var out []Entry
	for _, fi := range names {
		m := entryName.FindStringSubmatch(fi.Name())
		if m == nil || !fi.Mode().IsRegular() || fi.Size() > entryLimit {
			continue
		}
		e, ok := s.read(path.Join(s.entries(), fi.Name()))
		if !ok || strconv.Itoa(e.Seq) != strings.TrimLeft(m[1], "0") || e.ID != m[2] {
			continue
		}
		_, err := s.fs.Stat(path.Join(s.undone(), e.ID))
		e.Undone = err == nil
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.Seq - b.Seq })
	return out, nil
}

// read opens one entry file and checks its seal and contents.
func (s *Store) read(name string) (Entry, bool) {
	b, err := afero.ReadFile(s.fs, name)
	if err != nil || len(b) > entryLimit {
		return Entry{}, false
	}
	rest, ok := strings.CutPrefix(string(b), entryMagic)
	sum, body, ok2 := strings.Cut(rest, "\n")
	want, err := hex.DecodeString(sum)
	if !ok || !ok2 || err != nil || !hmac.Equal(want, s.mac([]byte(body))) {
		return Entry{}, false
	}
	var e Entry
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if dec.Decode(&e) != nil || !trusted(e) {
		return Entry{}, false
	}
	return e, true
}

// trusted checks what an undo would act on: every name clean, relative and inside the
// workspace, every hash a hash.
func trusted(e Entry) bool {
	for _, f := range e.Files {
		if f.Name == "" || f.Name != path.Clean(f.Name) || path.IsAbs(f.Name) || f.Name == ".." || strings.HasPrefix(f.Name, "../") {
			return false
		}
		for _, st := range []State{f.Before, f.After} {
			if st.Exists && !hashName.MatchString(st.Hash) && !st.Mode.IsDir() {
				return false
			}
		}
	}
	return true
}

// Content returns the bytes stored under hash, checked against it.
func (s *Store) Content(hash string) ([]byte, error) {
	if !hashName.MatchString(hash) {
		return nil, fmt.Errorf("history: %q is not a content hash", hash)
	}
	b, err := afero.ReadFile(s.fs, path.Join(s.blobs(), hash))
	if err != nil {
		return nil, fmt.Errorf("the history has lost a file's content: %w", err)
	}
	if Hash(b) != hash {
		return nil, errors.New("the history holds a file's content that does not match its hash")
	}
	return b, nil
}

// SetUndone marks an entry undone, or not (a redo): a file of its own, made or removed
// whole, so the entry itself is never rewritten.
func (s *Store) SetUndone(id string, undone bool) error {
	name := path.Join(s.undone(), id)
	if !undone {
		if err := s.fs.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := s.fs.MkdirAll(s.undone(), 0o700); err != nil {
		return err
	}
	return s.writeOnce(name, nil)
}

// dropUndone removes the entries that could be redone, since a new commit starts a new
// line, and returns the others.
func (s *Store) dropUndone(list []Entry) ([]Entry, error) {
	kept := list[:0:0]
	for _, e := range list {
		if !e.Undone {
			kept = append(kept, e)
		} else if err := s.remove(e); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// remove deletes an entry and its mark.
func (s *Store) remove(e Entry) error {
	if err := s.fs.Remove(path.Join(s.entries(), fmt.Sprintf("%010d-%s.json", e.Seq, e.ID))); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return s.SetUndone(e.ID, false)
}

// prune drops the oldest entries of list (the store's, oldest first) past the limits,
// then every content no entry names.
func (s *Store) prune(list []Entry) error {
	used := func(list []Entry) int64 {
		var n int64
		seen := map[string]bool{}
		for _, e := range list {
			n += int64(len(e.Payload)) + 512*int64(len(e.Files)+1)
			for _, f := range e.Files {
				if h := f.Before.Hash; h != "" && !seen[h] {
					seen[h], n = true, n+f.Before.Size
				}
			}
		}
		return n
	}
	for len(list) > 1 && (len(list) > s.limits.Entries || used(list) > s.limits.Bytes) {
		if err := s.remove(list[0]); err != nil {
			return err
		}
		list = list[1:]
	}
	keep := map[string]bool{}
	for _, e := range list {
		for _, f := range e.Files {
			keep[f.Before.Hash] = true
		}
	}
	blobs, err := afero.ReadDir(s.fs, s.blobs())
	if err != nil {
		return nil
	}
	for _, fi := range blobs {
		if !keep[fi.Name()] {
			s.fs.Remove(path.Join(s.blobs(), fi.Name()))
		}
	}
	return nil
}
