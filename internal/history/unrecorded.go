package history

import (
	"fmt"
	"os"
	"path"
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
	if err := s.fs.MkdirAll(s.entries(), 0o700); err != nil {
		return err
	}
	f, err := s.fs.OpenFile(s.intent(id), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// Intended removes the note of the entry id.
func (s *Store) Intended(id string) {
	if validID(id) {
		s.fs.Remove(s.intent(id))
	}
}

// unrecorded returns the newest time of the notes whose entry is missing from names, and
// whether there is one.
func (s *Store) unrecorded(names []name) (time.Time, bool) {
	infos, err := dirEntries(s.fs, s.entries())
	if err != nil {
		return time.Time{}, false
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n.ID] = true
	}
	var newest time.Time
	found := false
	for _, fi := range infos {
		id, ok := strings.CutSuffix(fi.Name(), intentSuffix)
		if !ok || !validID(id) || have[id] || !fi.Type().IsRegular() {
			continue
		}
		if info, err := fi.Info(); err == nil && (!found || info.ModTime().After(newest)) {
			newest, found = info.ModTime(), true
		}
	}
	return newest, found
}

// ForgetUnrecorded removes the notes whose entry is missing, once an undo has said so.
func (s *Store) ForgetUnrecorded() error {
	names, err := s.names()
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n.ID] = true
	}
	infos, err := dirEntries(s.fs, s.entries())
	if err != nil {
		return nil
	}
	for _, fi := range infos {
		if id, ok := strings.CutSuffix(fi.Name(), intentSuffix); ok && validID(id) && !have[id] {
			if err := s.fs.Remove(path.Join(s.entries(), fi.Name())); err != nil {
				return fmt.Errorf("the history cannot be updated: %w", pathless(err))
			}
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
	have := map[string]bool{}
	for _, n := range names {
		have[n.ID] = true
	}
	infos, err := dirEntries(s.fs, s.entries())
	if err != nil {
		return
	}
	newest, at := "", time.Time{}
	for _, fi := range infos {
		id, ok := strings.CutSuffix(fi.Name(), intentSuffix)
		if !ok || !validID(id) || have[id] {
			continue
		}
		if info, err := fi.Info(); err == nil && (newest == "" || info.ModTime().After(at)) {
			newest, at = fi.Name(), info.ModTime()
		}
	}
	if newest != "" {
		s.fs.Remove(path.Join(s.entries(), newest))
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
