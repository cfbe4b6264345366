// Package history keeps the record of committed changes that an undo reads: for each
// commit, what every path held before it and what the commit left there, bytes and all.
// Each entry is one file written whole or not at all (a temporary file renamed into
// place), bounded by entry count and bytes (oldest dropped first), and sealed with a key,
// so a store copied in, planted or cut short is never read as a record.
//
// It never touches the workspace and never decides what an undo may do: it records and
// returns facts, checked (seal, names, checksums) before they are returned.
package history

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/crc32c"
)

// A State is what a path holds: presence, mode and, for a file, its size and CRC-32C
// and where its bytes are: the entry's content Blob (an index into the entry's
// contents); or, when Blob is -1, the content Base with the regions of Edit applied
// after a byte-order mark of BOM bytes (an Update's result, kept as what it changed),
// or, where Payload is set, the lines of the entry's payload it names (an added file,
// kept once, in the payload).
type State struct {
	Exists  bool        `json:"exists"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	Size    int64       `json:"size,omitempty"`
	CRC     uint32      `json:"crc,omitempty"`
	Blob    int         `json:"blob"`
	Base    int         `json:"base,omitempty"`
	BOM     int         `json:"bom,omitempty"`
	Edit    []Region    `json:"edit,omitempty"`
	Payload *Span       `json:"payload,omitempty"`
}

// A Region is one change of an Edit: the base's lines [Start, End) replaced as Ops say,
// in the order they are written.
type Region struct {
	Start int  `json:"start"`
	End   int  `json:"end"`
	Ops   []Op `json:"ops"`
}

// An Op is one line of a Region: ' ' a base line kept, '-' one removed, '+' Text added.
type Op struct {
	Kind byte   `json:"k"`
	Text string `json:"t,omitempty"`
}

// A File is one path a commit changed: as authored, as a clean slash-separated name
// relative to the workspace, and its states before and after. From is set on a Move's
// destination: the name it was moved from, itself a File of the entry.
type File struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	From   string `json:"from,omitempty"`
	Before State  `json:"before"`
	After  State  `json:"after"`
}

// An Entry is one commit: its id and sequence number in the store, when it ended, the
// payload, its files and tallies, and whether it was undone since.
type Entry struct {
	ID          string    `json:"id"`
	Seq         int       `json:"seq"`
	Time        time.Time `json:"time"`
	Payload     string    `json:"-"` // kept as the content PayloadBlob
	PayloadBlob int       `json:"payloadBlob"`
	Files       []File    `json:"files"`
	Added       int       `json:"added"`
	Removed     int       `json:"removed"`
	Blobs       []Blob    `json:"blobs"`
	// Kept is the size of the contents kept in a directory of their own beside the entry
	// file (see Kept), 0 when every content is in the entry file.
	Kept int64 `json:"kept,omitempty"`
	// Made are the directories the commit created for the files it added, outermost
	// first: an undo removes those it leaves empty.
	Made []string `json:"made,omitempty"`
	// Workspace is the real name of the workspace the commit wrote in: an undo or a redo
	// in another is refused. Empty in an entry recorded before it was kept.
	Workspace string `json:"workspace,omitempty"`
	Undone    bool   `json:"-"`

	file string // the entry file it was read from
	size int64  // its size
	data []byte // its contents, once read
}

// A Blob is where one content lies in the entry file, after its first line, or, when
// File is set, the file of that name in the entry's kept directory; and its length and
// CRC-32C.
type Blob struct {
	Off  int64  `json:"off"`
	Len  int64  `json:"len"`
	CRC  uint32 `json:"crc"`
	File string `json:"file,omitempty"`
}

// Limits bound a store: the entries it keeps and the bytes of their files.
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

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// entryMagic starts every entry file; the contents follow it, then the entry's JSON,
// then the trailer: the MAC of the JSON and where the JSON starts and ends.
const entryMagic = "applypatch history 2\n"

// headerLimit bounds the entry JSON a store reads.
const headerLimit = 64 << 20

// trailerLimit bounds the trailer line.
const trailerLimit = 160

// entryName parses an entry file's name: its sequence number, ten digits zero-padded so
// that names sort as entries do, a dash, its id, the file's size after a dot (which a
// listing counts without a look at the file; -1 for a name without it, as entries
// recorded before it was written there have) and ".entry".
func entryName(name string) (seq int, id string, size int64, ok bool) {
	rest, ok := strings.CutSuffix(name, ".entry")
	if !ok || len(rest) < 11 || rest[10] != '-' || !digits(rest[:10], 10) {
		return 0, "", 0, false
	}
	id, n, sized := strings.Cut(rest[11:], ".")
	if !validID(id) || sized && !digits(n, 18) {
		return 0, "", 0, false
	}
	seq, _ = strconv.Atoi(rest[:10])
	size = -1
	if sized {
		size, _ = strconv.ParseInt(n, 10, 64)
	}
	return seq, id, size, true
}

// validID reports whether id is an entry id: 12 to 64 lowercase hexadecimal digits.
func validID(id string) bool {
	if len(id) < 12 || len(id) > 64 {
		return false
	}
	for i := range len(id) {
		if c := id[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// digits reports whether s is 1 to most decimal digits.
func digits(s string, most int) bool {
	if s == "" || len(s) > most {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// keptName parses a kept directory's name: the id of its entry, a dot, the size of its
// contents (which a listing counts without reading the entry) and ".kept".
func keptName(name string) (id string, size int64, ok bool) {
	rest, ok := strings.CutSuffix(name, ".kept")
	id, n, dot := strings.Cut(rest, ".")
	if !ok || !dot || !validID(id) || !digits(n, 18) {
		return "", 0, false
	}
	size, _ = strconv.ParseInt(n, 10, 64)
	return id, size, true
}

// keptFile reports whether name can be a content in a kept directory: a commit's backup
// of a baseline, "b" and up to nine digits.
func keptFile(name string) bool {
	n, ok := strings.CutPrefix(name, "b")
	return ok && digits(n, 9)
}

func (s *Store) entries() string { return path.Join(s.dir, "entries") }
func (s *Store) undone() string  { return path.Join(s.dir, "undone") }

// keptDir is the directory of the contents an entry keeps beside its file.
func (s *Store) keptDir(id string, size int64) string {
	return path.Join(s.entries(), KeptName(id, size))
}

// KeptName is the name, in the store's entries directory, of the directory holding the
// contents of the entry id kept beside its file, size bytes in all.
func KeptName(id string, size int64) string {
	return id + "." + strconv.FormatInt(size, 10) + ".kept"
}

// Checksum is the CRC-32C a store states a file's bytes with.
func Checksum(b []byte) uint32 { return crc32c.Checksum(b) }

// mac is the entry's MAC under the store's key.
func (s *Store) mac(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, "history entry 2\n")
	m.Write(body)
	return m.Sum(nil)
}

// fileName is the name of the entry file of e, size bytes long.
func fileName(e *Entry, size int64) string {
	return fmt.Sprintf("%010d-%s.%d.entry", e.Seq, e.ID, size)
}

// trusted checks what an undo would act on: every name clean, relative and inside the
// workspace and named once, a Move's source one of the entry's files, every state's
// content one of the entry's, and every content inside the file.
func trusted(e *Entry, size int64) bool {
	names := map[string]bool{}
	for _, f := range e.Files {
		if !cleanName(f.Name) || names[f.Name] {
			return false
		}
		names[f.Name] = true
	}
	for _, f := range e.Files {
		if f.From != "" && (!names[f.From] || f.From == f.Name) {
			return false
		}
		for _, st := range []State{f.Before, f.After} {
			if st.Exists && !located(st, e) || st.Mode&^(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
				return false
			}
		}
	}
	for _, b := range e.Blobs {
		switch {
		case b.File != "" && (!keptFile(b.File) || b.Off != 0 || b.Len < 0 || e.Kept <= 0):
			return false
		case b.File == "" && (b.Off < 0 || b.Len < 0 || b.Off+b.Len > size):
			return false
		}
	}
	for _, d := range e.Made {
		if !cleanName(d) || !slices.ContainsFunc(e.Files, func(f File) bool { return !f.Before.Exists && strings.HasPrefix(f.Name, d+"/") }) {
			return false // only a directory above a file the change made is the change's
		}
	}
	return validID(e.ID) && e.Seq > 0 && e.Kept >= 0
}

// located reports whether a file's state names its bytes soundly: a content of the
// entry, an edit of one whose regions are in order, or a span of the payload.
func located(st State, e *Entry) bool {
	blobs := len(e.Blobs)
	switch {
	case st.Payload != nil:
		held := e.PayloadBlob >= 0 && e.PayloadBlob < blobs && e.Blobs[e.PayloadBlob].File == ""
		return held && st.Blob == -1 && st.Base == 0 && st.BOM == 0 && st.Edit == nil &&
			st.Payload.within(e.Blobs[e.PayloadBlob].Len)
	case st.Blob >= 0:
		return st.Blob < blobs && st.Edit == nil
	}
	if st.Blob != -1 || st.Base < 0 || st.Base >= blobs || st.BOM < 0 || st.BOM > 4 || st.Size < 0 {
		return false
	}
	end := 0
	for _, r := range st.Edit {
		if r.Start < end || r.End < r.Start {
			return false
		}
		end = r.End
	}
	return true
}

// cleanName reports whether name is a clean relative slash path inside the workspace.
func cleanName(name string) bool {
	return name != "" && name != "." && name == path.Clean(name) && !path.IsAbs(name) &&
		name != ".." && !strings.HasPrefix(name, "../") && !strings.ContainsRune(name, 0)
}
