package applypatch

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/dryrun"
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/show"
	"github.com/applypatch/applypatch/internal/txn"
)

// A History is a store of committed changes that [Undo] and [Redo] read: for every
// commit of a proposal resolved with it in Options.History that writes anything, what
// each path held before the commit (bytes, mode, or absence) and what the commit left
// there, the payload, the time and the tallies. Each entry is written whole after its commit, or not at all; a
// history that cannot be written is noted in the commit's result and never fails the
// commit. The store keeps the last 100 commits within 256 MiB, dropping the oldest
// first, and a new commit drops the changes an undo made redoable.
//
// Entries are sealed with a key of this user (of this process for an [afero.MemMapFs]),
// so a store copied from elsewhere is never read as a record, and every entry is checked
// before it is used. It holds the bytes of the files it records: keep it where only the
// user can read it, outside the workspace. On the operating system's filesystem, where
// the history and the workspace share a filesystem, an entry keeps the baselines a commit
// replaced as the very files, taken over from the commit's journal by one rename rather
// than written again; a baseline with other hard links is written as bytes, since a write
// through another name would change it. A user's history ([UserHistory]) takes an undo's
// or a redo's journal over the same way once it is final, and the workspace's next commit
// removes it beside its own work, so the undo does not wait for its backups' removal. A
// History may be shared by the goroutines of a process; commits of one workspace are
// serialised by its lock.
type History struct {
	fsys afero.Fs
	dir  string
	// workspace is, for a user history, the real path of the workspace it belongs to,
	// written beside it so that a history whose workspace is gone can be swept.
	workspace string

	once  sync.Once
	mark  sync.Once // the workspace file written
	sweep sync.Once // the other histories' sweep started
	swept func()    // waits for it (see sweepStart)
	store *history.Store
	err   error
}

// NewHistory returns the history kept in dir of fsys, created on the first commit. Give
// each workspace its own directory: an undo reads the workspace's files by the names the
// history recorded, relative to the workspace, and refuses a change recorded in another
// workspace than its options name.
func NewHistory(fsys afero.Fs, dir string) *History {
	return &History{fsys: fsys, dir: dir}
}

// UserHistory returns the history of the workspace directory dir on the operating
// system's filesystem, kept under $XDG_STATE_HOME/applypatch/history/ (by default
// ~/.local/state/applypatch/history/) in a directory named for the workspace's identity:
// its real path and the device and inode of its directory. A copied, cloned or unpacked
// tree is a new identity with no history, and nothing is written inside the workspace.
// A commit that records in a user history also removes the histories of workspaces that
// are gone: at once where another directory took the path, after two weeks where nothing
// did, so a tree moved away for a while and back keeps its history.
func UserHistory(dir string) (*History, error) {
	id, real, err := workspaceIdentity(dir)
	if err != nil {
		return nil, fmt.Errorf("applypatch: the workspace %s has no history: %w", dir, err)
	}
	state, err := txn.StateDir()
	if err != nil {
		return nil, err
	}
	all := filepath.Join(state, "history")
	if fi, err := os.Lstat(filepath.Join(all, id)); err == nil && !fi.IsDir() {
		// applypatch makes this directory; a link in its place would lead this
		// workspace's undo to another workspace's history
		return nil, fmt.Errorf("applypatch: the history of %s is not a directory (a symbolic link or a file is in its "+
			"place), so it is not used; remove it to keep a new history", dir)
	}
	h := NewHistory(afero.NewOsFs(), filepath.Join(all, id))
	h.workspace = real
	return h, nil
}

// errNotDir is why a file is no workspace.
var errNotDir = errors.New("it is not a directory")

// workspaceIdentity names a workspace directory by its real path and, where the system
// has them, its device and inode.
func workspaceIdentity(dir string) (id, real string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	real, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", "", err
	}
	if !fi.IsDir() {
		return "", "", errNotDir
	}
	return identityOf(real, fi), real, nil
}

// identityOf names the directory fi found at path.
func identityOf(path string, fi os.FileInfo) string {
	sum := sha256.Sum256([]byte(path + "\x00" + fileIdentity(fi)))
	return hex.EncodeToString(sum[:16])
}

// errZeroHistory refuses a History made otherwise than by NewHistory or UserHistory.
var errZeroHistory = errors.New("applypatch: the History has no filesystem; make it with NewHistory or UserHistory")

// opened is the store, with its key, made on first use.
func (h *History) opened() (*history.Store, error) {
	if h.fsys == nil {
		return nil, errZeroHistory
	}
	h.once.Do(func() {
		key, err := txn.Key(h.fsys, txn.Config{})
		if err != nil {
			h.err = err
			return
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte("applypatch history key\n"))
		h.store = history.Open(h.fsys, h.dir, m.Sum(nil), history.Limits{})
	})
	return h.store, h.err
}

// writing is the store, opened to record a commit: a user history first writes which
// workspace it belongs to, so that it can be swept once that workspace is gone (see
// sweepStart, which the commit calls). A run that only reads the history (a check, a
// listing) neither makes its directory nor removes another's.
func (h *History) writing() (*history.Store, error) {
	s, err := h.opened()
	if s != nil && h.workspace != "" {
		h.mark.Do(h.markWorkspace)
	}
	return s, err
}

// A HistoryEntry is one commit a [History] recorded.
type HistoryEntry struct {
	// ID names the entry.
	ID string `json:"id"`
	// Time is when the commit ended.
	Time time.Time `json:"time"`
	// Paths are the paths the commit changed, as authored, a Move as its two.
	Paths []string `json:"paths"`
	// Added and Removed count the lines the commit added and removed.
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Undone is set when the change is undone: [Redo] can apply it again.
	Undone bool `json:"undone"`
}

// Entries returns the recorded commits, newest first. Files in the store that are not
// sound entries of this user's history are skipped.
func (h *History) Entries() ([]HistoryEntry, error) {
	if h == nil {
		return nil, nil // no history: no entries
	}
	s, err := h.opened()
	if err != nil {
		return nil, err
	}
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, 0, len(list))
	for _, e := range slices.Backward(list) {
		out = append(out, entryOf(&e))
	}
	return out, nil
}

// entryOf is the public view of a store entry.
func entryOf(e *history.Entry) HistoryEntry {
	he := HistoryEntry{ID: e.ID, Time: e.Time, Added: e.Added, Removed: e.Removed, Undone: e.Undone, Paths: []string{}}
	for _, f := range e.Files {
		he.Paths = append(he.Paths, f.Path)
	}
	return he
}

// String says what the entry changed, in one line: when, its id, its paths and tallies.
func (e HistoryEntry) String() string {
	s := fmt.Sprintf("%s %s %s (+%d -%d)", e.ID, e.when(), e.paths(), e.Added, e.Removed)
	if e.Undone {
		s += " [undone]"
	}
	return s
}

// ErrNothingToUndo is returned by [Undo] when the history holds no change that is not
// undone, or no history is configured.
var ErrNothingToUndo = errors.New("there is nothing to undo: no change applied here is recorded in the history, or every one is undone")

// ErrNothingToRedo is returned by [Redo] when no change was undone since the last commit.
var ErrNothingToRedo = errors.New("there is nothing to redo: no change was undone since the last one applied")

// A passedOverError is an undo or a redo refused because the change it would revert is
// one the history cannot revert: its record is damaged, or the history missed it. Such a
// change is never passed over, since reverting the one before it instead would revert
// another change than asked for. Clearing it (not in a check) lets the next undo or redo
// go on; with nothing left to revert the error is also an [ErrNothingToUndo] (or
// [ErrNothingToRedo]).
type passedOverError struct {
	head        string // what is refused and why, up to "nothing was written."
	would, done string // what clearing the change would do, in a check, and what it did
	failedHow   string // what could not be done, when clearing failed
	next        string // what the next undo or redo does
	undo, left  bool   // an undo or a redo; whether another change is left to revert
	check       bool
	failed      error
}

func (e *passedOverError) Error() string {
	switch {
	case e.check:
		return e.head + " " + e.would + "; then " + e.next
	case e.failed != nil:
		return e.head + " " + e.failedHow + ": " + e.failed.Error()
	}
	return e.head + " " + e.done + ": " + e.next
}

func (e *passedOverError) Unwrap() error {
	if e.left || e.check || e.failed != nil {
		return nil
	}
	return nothingTo(e.undo)
}

// damaged is the error of an undo or a redo whose change's record is damaged; but for a
// check, the damaged records are removed from s.
func damaged(ctx context.Context, s *history.Store, d *history.DamagedError, undo bool) error {
	verb, which, next := "undo", "newest change", "undo again to revert the change before it"
	if !undo {
		verb, which, next = "redo", "change undone last", "redo again to apply the next change undone"
	}
	if !d.Left {
		next = "nothing is left to " + verb
	}
	e := &passedOverError{undo: undo, left: d.Left, check: dryrun.Is(ctx), next: next,
		head: fmt.Sprintf("cannot %s the %s (%s): its record in the history is damaged, or was not written by this "+
			"user, so it cannot be reverted, and reverting another change instead is not what was asked; nothing was "+
			"written.", verb, which, d.ID),
		would:     "The " + verb + " would remove the damaged record from the history",
		failedHow: "The damaged record could not be removed from the history"}
	if !e.check {
		var removed int
		removed, e.failed = s.RemoveDamaged()
		e.done = fmt.Sprintf("The damaged record is removed from the history (%d in all)", removed)
	}
	return e
}

// unrecorded is the error of an undo that reached a change the history missed (see
// history.UnrecordedError); but for a check, the history forgets it.
func unrecorded(ctx context.Context, s *history.Store, u *history.UnrecordedError) error {
	next := "undo again to revert the change before it"
	if !u.Left {
		next = "nothing else is left to undo"
	}
	e := &passedOverError{undo: true, left: u.Left, check: dryrun.Is(ctx), next: next,
		head: fmt.Sprintf("cannot undo: %s, so it cannot be undone, and undoing the change before it instead is not "+
			"what was asked; nothing was written.", u),
		would:     "The undo would forget that change (its files stay as they are)",
		done:      "That change is forgotten (its files stay as they are)",
		failedHow: "The history could not be updated"}
	if !e.check {
		e.failed = s.ForgetUnrecorded()
	}
	return e
}

// markWorkspace writes which workspace a user history belongs to, once.
func (h *History) markWorkspace() {
	name := filepath.Join(h.dir, workspaceFile)
	if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
		return
	}
	fsys := afero.NewOsFs() // written as the store writes its files: never through a link
	if history.EnsureDir(fsys, h.dir) == nil {
		history.WriteWhole(fsys, name, []byte(h.workspace))
	}
}

// when is the entry's time as a person reads it, in local time.
func (e HistoryEntry) when() string { return e.Time.Local().Format("2006-01-02 15:04:05") }

// paths names the entry's first three paths, and counts the others.
func (e HistoryEntry) paths() string {
	paths := show.Paths(e.Paths)
	if len(paths) > 3 {
		paths = append(paths[:3:3], fmt.Sprintf("and %d more", len(paths)-3))
	}
	return strings.Join(paths, ", ")
}
