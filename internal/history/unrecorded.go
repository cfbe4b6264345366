package history

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// A commit becomes final a moment before its entry is recorded: a process killed in
// between leaves a change on disk that the history does not hold, and an undo would then
// revert the change before it as if it were the newest. So a commit notes, before it
// becomes final, the entry it is about to record (Intend), and removes the note once the
// entry is recorded or will not be (Intended). A note with no entry is a change the
// history missed; an undo that reaches it is refused (*UnrecordedError).

// intentSuffix ends the name of an intent note: the entry's id, then the suffix.
const intentSuffix = ".intent"

// intent is the name of the note of the entry id.
func (s *Store) intent(id string) string { return path.Join(s.entries(), id+intentSuffix) }

// Intend notes that the commit whose entry will be id is about to become final.
func (s *Store) Intend(id string) error {
	if !validID(id) {
		return fmt.Errorf("history: %q is not an entry id", id)
	}
	if err := EnsureDir(s.fs, s.entries()); err != nil {
		return err
	}
	return WriteWhole(s.fs, s.intent(id), nil)
}

// Intended removes the note of the entry id.
func (s *Store) Intended(id string) {
	if validID(id) {
		s.fs.Remove(s.intent(id))
	}
}

// A missed note is the note of an entry that is not in the store: its file's name in
// the entries directory and when it was written.
type missed struct {
	file string
	at   time.Time
}

// missedNotes lists the notes whose entry is not among names.
func (s *Store) missedNotes(names []name) []missed {
	infos, err := dirEntries(s.fs, s.entries())
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n.ID] = true
	}
	var out []missed
	for _, fi := range infos {
		id, ok := strings.CutSuffix(fi.Name(), intentSuffix)
		if !ok || !validID(id) || have[id] || !fi.Type().IsRegular() {
			continue
		}
		if info, err := fi.Info(); err == nil {
			out = append(out, missed{file: path.Join(s.entries(), fi.Name()), at: info.ModTime()})
		}
	}
	return out
}

// newest is the most recently written of notes, and whether there is one.
func newest(notes []missed) (missed, bool) {
	if len(notes) == 0 {
		return missed{}, false
	}
	return slices.MaxFunc(notes, func(a, b missed) int { return a.at.Compare(b.at) }), true
}

// unrecorded returns when the newest note whose entry is missing from names was written,
// and whether there is one.
func (s *Store) unrecorded(names []name) (time.Time, bool) {
	m, ok := newest(s.missedNotes(names))
	return m.at, ok
}

// ForgetUnrecorded removes the notes whose entry is missing, once an undo has said so.
func (s *Store) ForgetUnrecorded() error {
	names, err := s.names()
	if err != nil {
		return err
	}
	for _, m := range s.missedNotes(names) {
		if err := s.fs.Remove(m.file); err != nil {
			return fmt.Errorf("the history cannot be updated: %w", pathless(err))
		}
	}
	return nil
}

// ForgetNewestIntent removes the newest note whose entry is missing, if there is one:
// that of a commit that recovery undid, which never became final.
func (s *Store) ForgetNewestIntent() {
	names, err := s.names()
	if err != nil {
		return
	}
	if m, ok := newest(s.missedNotes(names)); ok {
		s.fs.Remove(m.file)
	}
}

// An UnrecordedError is an undo that reached a change the history missed: a commit made
// final at When whose process was stopped before it recorded its entry. Undoing the
// change before it instead would not be what was asked.
type UnrecordedError struct {
	When time.Time
	Left bool // whether an entry is left to undo once the note is forgotten
}

func (e *UnrecordedError) Error() string {
	return fmt.Sprintf("a change applied at %s is missing from the history (it could not be recorded, or its process "+
		"was stopped before it was)", e.When.Local().Format("2006-01-02 15:04:05"))
}
