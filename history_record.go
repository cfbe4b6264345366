package applypatch

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/txn"
)

// recordHistory runs after a commit is durable: it records the commit in the history the
// options name or, for an undo or a redo, marks the entry it reverted. It never fails
// the commit: what went wrong is a note of the result.
func (pr *Proposal) recordHistory(plan []*txn.Step, res *Result) {
	if rv := pr.reverts; rv != nil {
		res.note(rv.done())
		if err := rv.mark(); err != nil {
			res.note("History not updated: " + err.Error() + "; the files are " + rv.verb() + "ne, but the history lists the change as before")
		}
		return
	}
	if pr.opts.History == nil {
		return
	}
	if err := pr.writeHistory(plan, res); err != nil {
		res.note("History not recorded: " + err.Error() + "; the change is applied, but it cannot be undone")
	}
}

// done says what an undo or a redo did, for the result the model reads.
func (rv *reverting) done() string {
	if rv.undo {
		return "Undid " + rv.what() + "; redo applies it again."
	}
	return "Redid " + rv.what() + "."
}

// mark records in the history that the entry is undone, or no longer.
func (rv *reverting) mark() error {
	s, err := rv.history.opened()
	if err != nil {
		return err
	}
	return s.SetUndone(rv.entry.ID, rv.undo)
}

// errHistoryMoved refuses the commit of an undo or a redo whose entry is no longer the one
// to revert.
var errHistoryMoved = errors.New("the history changed since this was proposed (another change, undo or redo was applied); nothing was written: ask for the undo or redo again")

// stillReverting checks, under the commit's lock, that an undo's or a redo's entry is
// still the one to revert.
func (pr *Proposal) stillReverting() error {
	rv := pr.reverts
	if rv == nil {
		return nil
	}
	s, err := rv.history.opened()
	if err != nil {
		return err
	}
	e, ok, err := pick(s, rv.undo)
	if err != nil {
		return err
	}
	if !ok || e.ID != rv.entry.ID {
		return errHistoryMoved
	}
	return nil
}

// writeHistory records the commit of plan: every path's baseline and what the commit
// left, the payload, the time and the tallies.
func (pr *Proposal) writeHistory(plan []*txn.Step, res *Result) error {
	s, err := pr.opts.History.opened()
	if err != nil {
		return err
	}
	f, err := pr.fencer()
	if err != nil {
		return err
	}
	e := &history.Entry{ID: newEntryID(), Time: time.Now().UTC(), Payload: pr.payload}
	for _, fr := range res.Files {
		e.Added += fr.Added
		e.Removed += fr.Removed
	}
	var contents []history.Content
	state := func(exists bool, mode fs.FileMode, c history.Content) history.State {
		if !exists {
			return history.State{Blob: -1}
		}
		contents = append(contents, c)
		return history.State{Exists: true, Mode: mode, Blob: len(contents) - 1}
	}
	seen := map[string]bool{}
	for _, st := range plan {
		name, ok := relativeTo(f.Real(), st.Name)
		if !ok {
			return fmt.Errorf("%s lies outside the workspace", st.Path)
		}
		if seen[name] || st.Base.Dir || st.Base.Mode.Type() != 0 {
			return fmt.Errorf("%s is not a regular file written once", st.Path)
		}
		seen[name] = true
		file := history.File{Path: st.Path, Name: name}
		file.Before = state(st.Base.Exists, st.Base.Mode.Perm()|st.Base.Mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), history.Bytes(st.Base.Bytes))
		file.After = state(st.Op == txn.Write, st.Mode, st.Body)
		if st.From != "" {
			if file.From, ok = relativeTo(f.Real(), st.From); !ok {
				return fmt.Errorf("%s lies outside the workspace", st.Path)
			}
		}
		e.Files = append(e.Files, file)
	}
	return s.Record(e, contents)
}

// relativeTo is name relative to the workspace root, when it lies inside it.
func relativeTo(root, name string) (string, bool) {
	if root == "/" {
		rel := strings.TrimPrefix(name, "/")
		return rel, rel != "" && rel != name
	}
	rel, ok := strings.CutPrefix(name, strings.TrimSuffix(root, "/")+"/")
	return rel, ok && rel != ""
}

// newEntryID is a new history entry's id: 48 random bits, in hex.
func newEntryID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
