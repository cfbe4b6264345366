package history

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// An undo or a redo becomes final a moment before the history marks its entry undone or
// redone: a process stopped in between leaves the files reverted and the history saying
// otherwise, so that the next undo reverts the change again, or is refused, and no redo
// is offered. So the revert notes, just before it becomes final, what it found and what
// it leaves at each path (NoteRevert), and the note goes once the mark is set. A note
// found later belongs to a process stopped in between, or to one stopped before, whose
// commit recovery undid: the run that finds it, holding the workspace's lock, tells the
// two apart by the files and settles it (see RevertNotes).

// A RevertNote is what an undo (Undo) or a redo of the entry ID did in the workspace
// Workspace (its real name): each path it wrote or removed, the names of the files its
// review kept back (see MarkUndone), and for an undo the directories the change had made,
// which it removes once they are empty.
type RevertNote struct {
	ID        string     `json:"id"`
	Undo      bool       `json:"undo,omitempty"`
	Workspace string     `json:"workspace"`
	KeptBack  []string   `json:"keptBack,omitempty"`
	Made      []string   `json:"made,omitempty"`
	Paths     []PathNote `json:"paths"`
}

// A PathNote is one path of a revert, as its operation named it: what the revert found
// there (nil where it is not known) and what it left.
type PathNote struct {
	Path  string     `json:"path"`
	Found *PathState `json:"found,omitempty"`
	Left  PathState  `json:"left"`
}

// A PathState is no file, or a file of Len bytes with the CRC-32C CRC and the permission
// bits Mode.
type PathState struct {
	Exists bool        `json:"exists,omitempty"`
	Len    int64       `json:"len,omitempty"`
	CRC    uint32      `json:"crc,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
}

// noteLimit bounds the bytes of a note read: the states of one change's files.
const noteLimit = 16 << 20

// reverting is the directory of the notes.
func (s *Store) reverting() string { return path.Join(s.dir, "reverting") }

// NoteRevert writes the note n, whole or not at all, sealed with the store's key.
func (s *Store) NoteRevert(n *RevertNote) error {
	if !validID(n.ID) {
		return fmt.Errorf("history: %q is not an entry id", n.ID)
	}
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	if err := EnsureDir(s.fs, s.reverting()); err != nil {
		return err
	}
	data := append([]byte(hex.EncodeToString(s.noteMAC(body))+"\n"), body...)
	return WriteWhole(s.fs, path.Join(s.reverting(), n.ID), data)
}

// DropRevertNote removes the note of the entry id, if there is one.
func (s *Store) DropRevertNote(id string) {
	if validID(id) {
		s.fs.Remove(path.Join(s.reverting(), id))
	}
}

// RevertNotes returns the notes a stopped revert left. A file named as a note that is not
// a sealed one (planted, or cut short) is removed and never acted on, and so is a
// temporary file a crash left; nothing else there is touched.
func (s *Store) RevertNotes() []RevertNote {
	infos, err := dirEntries(s.fs, s.reverting())
	if err != nil {
		return nil
	}
	var out []RevertNote
	for _, fi := range infos {
		name := path.Join(s.reverting(), fi.Name())
		base, tmp, _ := strings.Cut(fi.Name(), tmpInfix)
		switch {
		case !validID(base) || fi.IsDir():
			continue // not the store's
		case tmp != "":
			if s.stale(name) {
				s.fs.Remove(name)
			}
		default:
			if n, ok := s.readNote(name, fi); ok {
				out = append(out, n)
			} else {
				s.fs.Remove(name)
			}
		}
	}
	return out
}

// readNote reads the note in the file name, listed as fi, and checks its seal and its
// names.
func (s *Store) readNote(name string, fi fs.DirEntry) (RevertNote, bool) {
	var n RevertNote
	data, err := ReadSmall(s.fs, name, noteLimit)
	if err != nil {
		return n, false
	}
	sum, body, ok := bytes.Cut(data, []byte("\n"))
	want, err := hex.DecodeString(string(sum))
	if !ok || err != nil || !hmac.Equal(want, s.noteMAC(body)) || json.Unmarshal(body, &n) != nil {
		return n, false
	}
	return n, n.ID == fi.Name() && n.sound()
}

// sound checks what settling the note acts on: names clean and inside the workspace,
// and modes no more than permission bits.
func (n *RevertNote) sound() bool {
	for _, names := range [][]string{n.KeptBack, n.Made} {
		for _, name := range names {
			if !cleanName(name) {
				return false
			}
		}
	}
	for _, p := range n.Paths {
		if p.Path == "" || strings.ContainsRune(p.Path, 0) || !p.Left.sound() || p.Found != nil && !p.Found.sound() {
			return false
		}
	}
	return len(n.Paths) > 0 && n.Workspace != ""
}

// sound checks a state's length and mode.
func (st PathState) sound() bool {
	return st.Len >= 0 && st.Mode&^(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) == 0
}

// noteMAC is a note's MAC under the store's key, apart from an entry's.
func (s *Store) noteMAC(body []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, "history revert note 1\n")
	m.Write(body)
	return m.Sum(nil)
}
