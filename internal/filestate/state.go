// Package filestate records what a path holds: the baseline captured once before review
// (presence, kind, mode, bytes), what it holds when read again, the owner and link count
// a rewritten file must keep, and a stamp of the file's metadata that proves it unchanged
// without reading its bytes again. It says whether a path still holds the same, by bytes,
// hash, stamp or a host's snapshot.
//
// It only reads: it never writes, removes or renames a file, and it never words a
// refusal. A path it cannot read, or one over its caller's limit, is reported as a fact
// ([*ReadError], [*TooLarge]) that the caller words.
package filestate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"

	"github.com/spf13/afero"
)

// ReadLink reads a symbolic link as a state: its target text as the data, its mode
// with fs.ModeSymlink. A path that is no link (or a filesystem without links) reads as
// absent, so the caller reads it as a file.
func ReadLink(fsys afero.Fs, name string) State {
	ls, ok := fsys.(afero.Lstater)
	rl, ok2 := fsys.(afero.LinkReader)
	if !ok || !ok2 {
		return State{}
	}
	fi, lstatted, err := ls.LstatIfPossible(name)
	if err != nil || !lstatted || fi.Mode()&fs.ModeSymlink == 0 {
		return State{}
	}
	target, err := rl.ReadlinkIfPossible(name)
	if err != nil {
		return State{Err: err}
	}
	return State{Exists: true, Data: []byte(target), Mode: fs.ModeSymlink | fi.Mode().Perm()}
}

// A Baseline is the state of a path captured before review: present or absent, its mode
// and its bytes.
type Baseline struct {
	Exists bool        `json:"exists"`
	Dir    bool        `json:"dir,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	// Hash is the hex SHA-256 of the bytes. Resolve leaves it empty, since comparing a
	// large file costs less than hashing it; Baseline.Sum computes it, and a baseline
	// restored without its bytes is checked by it.
	Hash string `json:"hash,omitempty"`
	// Bytes is the file's content; nil for an absent path or a directory. It must not be
	// modified. For a symbolic link that a Delete removes, Mode has [fs.ModeSymlink] and
	// Bytes is the link's target as stored.
	Bytes []byte `json:"bytes,omitempty"`
}

// IsLink reports whether the baseline is a symbolic link itself, not the file it points
// to: the path of a Delete that is a link.
func (b Baseline) IsLink() bool { return b.Mode&fs.ModeSymlink != 0 }

// Sum returns the hex SHA-256 of the baseline's bytes: Hash when set, else computed.
func (b Baseline) Sum() string {
	if b.Hash != "" || !b.Exists || b.Dir {
		return b.Hash
	}
	return Hash(b.Bytes)
}

// Hash is the hex SHA-256 of b.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// State is what a path holds when read: absent, a directory, or a file's bytes and mode.
// Err is set when the path could not be read; such a state matches nothing.
type State struct {
	Exists bool
	Dir    bool
	Data   []byte
	Mode   fs.FileMode
	Own    Owner
	Err    error
	Info   fs.FileInfo // the file's own info, where its bytes were read just now
}

// Hash is the hex SHA-256 of the state's bytes, computed only where a hash must be
// compared: hashing a large file costs more than comparing it.
func (s State) Hash() string { return Hash(s.Data) }

// Is reports whether the state is the baseline b: by bytes when the baseline keeps them,
// else by hash, so a baseline that keeps only its hash is checked as well.
func (s State) Is(b Baseline) bool {
	switch {
	case s.Err != nil:
		return false
	case !b.Exists || !s.Exists:
		return b.Exists == s.Exists
	case b.Dir || s.Dir || s.Mode != b.Mode:
		return false
	case b.Bytes != nil || b.Hash == "":
		return bytes.Equal(s.Data, b.Bytes)
	}
	return s.Hash() == b.Hash
}

// Same reports whether two read states hold the same thing.
func (s State) Same(o State) bool {
	switch {
	case s.Err != nil || o.Err != nil:
		return false
	case !s.Exists || !o.Exists:
		return s.Exists == o.Exists
	}
	return !s.Dir && !o.Dir && s.Mode == o.Mode && bytes.Equal(s.Data, o.Data)
}

// An Expect is a snapshot a host supplies for a path, what it last saw there: presence,
// and the mode and the hex SHA-256 of the bytes when they are set.
type Expect struct {
	Exists bool
	Mode   fs.FileMode
	Hash   string
}

// Satisfies checks the state against a host-supplied snapshot: presence always, the hash
// and the mode when the snapshot has them.
func (s State) Satisfies(snap Expect) bool {
	switch {
	case s.Err != nil:
		return false
	case !snap.Exists || !s.Exists:
		return snap.Exists == s.Exists
	}
	return !s.Dir && (snap.Mode == 0 || snap.Mode == s.Mode) && (snap.Hash == "" || snap.Hash == s.Hash())
}

// SatisfiesAll checks the state against every snapshot the host supplies for its path.
func (s State) SatisfiesAll(snaps []Expect) bool {
	for _, snap := range snaps {
		if !s.Satisfies(snap) {
			return false
		}
	}
	return true
}
