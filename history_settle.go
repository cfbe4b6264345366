package applypatch

import (
	"fmt"
	"io/fs"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/txn"
)

// noteRevert returns what an undo's or a redo's commit does just before it becomes
// final: note in the history what it found and what it leaves at each path of the plan,
// so that a process stopped before it marks the entry leaves the history a way to tell
// (see settleReverts). A note that cannot be written costs only that.
func (pr *Proposal) noteRevert(plan []*txn.Step) func() {
	rv := pr.reverts
	return func() {
		s, err := rv.history.opened()
		if err != nil {
			return
		}
		f, err := pr.fencer()
		if err != nil {
			return
		}
		n := &history.RevertNote{ID: rv.entry.ID, Undo: rv.undo, Workspace: f.Real(), KeptBack: pr.keptBackNames(),
			Paths: make([]history.PathNote, 0, len(plan))}
		if rv.undo {
			n.Made = rv.made
		}
		for _, st := range plan {
			p := history.PathNote{Path: st.Path, Found: foundState(st.Base)}
			if st.Op == txn.Write {
				p.Left.Exists, p.Left.Mode = true, keptMode(st.Mode)
				p.Left.Len, p.Left.CRC = st.Written()
			}
			n.Paths = append(n.Paths, p)
		}
		s.NoteRevert(n)
	}
}

// foundState is what a step's baseline says its path held, nil where its bytes are not
// at hand (a proposal restored without them) or it is not a file.
func foundState(b filestate.Baseline) *history.PathState {
	switch {
	case !b.Exists:
		return &history.PathState{}
	case b.Dir || b.IsLink() || b.Bytes == nil && b.Hash != "":
		return nil
	}
	st := stateOf(b.Bytes, b.Mode)
	return &st
}

// stateOf is the state of a file of the bytes b and the mode.
func stateOf(b []byte, mode fs.FileMode) history.PathState {
	return history.PathState{Exists: true, Len: int64(len(b)), CRC: history.Checksum(b), Mode: keptMode(mode)}
}

// dropRevertNote removes the note noteRevert wrote, once the entry is marked or the
// revert did not become final.
func (pr *Proposal) dropRevertNote() {
	if rv := pr.reverts; rv != nil {
		if s, err := rv.history.opened(); err == nil {
			s.DropRevertNote(rv.entry.ID)
		}
	}
}

// settleReverts settles the notes of undos and redos stopped before the history marked
// them. A revert that became final changed every path it noted, and recovery puts every
// path of one that did not back as it found it: so where no path holds what the revert
// found and at least one holds what it left (the others edited since), the revert was
// final, and its entry is marked as the revert would have marked it, and an undo's empty
// directories go; the note is dropped either way. Notes of other workspaces are left to
// theirs. It returns what it marked, one sentence each. The caller holds the workspace's
// lock, and has recovered its journals.
func settleReverts(f *fence.Fence, opts *Options) []string {
	if opts == nil || opts.History == nil {
		return nil
	}
	s, err := opts.History.opened()
	if err != nil {
		return nil
	}
	return settleNotes(f, opts, s, s.RevertNotes())
}

// settleNotes is settleReverts of the notes listed.
func settleNotes(f *fence.Fence, opts *Options, s *history.Store, notes []history.RevertNote) []string {
	limit := opts.Limits.withDefaults().FileBytes
	var told []string
	for _, n := range notes {
		if n.Workspace != f.Real() {
			continue
		}
		if wasFinal(f, limit, n.Paths) {
			if s.MarkUndone(n.ID, n.Undo, n.KeptBack) != nil {
				continue // the note stays for a run that can mark the entry
			}
			if n.Undo {
				removeMadeDirs(f, n.Made)
			}
			told = append(told, settledNote(n))
		}
		s.DropRevertNote(n.ID)
	}
	return told
}

// settledNote says what settling the note n marked.
func settledNote(n history.RevertNote) string {
	verb, next := "redo", "undo reverts it again"
	if n.Undo {
		verb, next = "undo", "redo applies it again"
	}
	return fmt.Sprintf("the %s of the change %s had finished before the history could say so (its process was "+
		"stopped, or the history could not be written); the history now does: %s", verb, n.ID, next)
}

// settleUnlocked is settleReverts without the workspace's lock, as an undo or a redo
// is proposed: it settles nothing while a journal is in the workspace (a commit running,
// or one stopped that recovery has yet to undo), whose revert may not be final yet.
func settleUnlocked(fsys afero.Fs, opts *Options) {
	if opts == nil || opts.History == nil {
		return
	}
	s, err := opts.History.opened()
	if err != nil {
		return
	}
	notes := s.RevertNotes()
	if len(notes) == 0 {
		return
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return
	}
	if key, err := txn.Key(fsys, txnConfigOf(opts)); err == nil && !txn.Pending(f, key).Pending {
		settleNotes(f, opts, s, notes)
	}
}

// wasFinal reports whether the paths of a revert show it final: none holds what the
// revert found, and at least one what it left.
func wasFinal(f *fence.Fence, limit int64, paths []history.PathNote) bool {
	left := false
	for _, p := range paths {
		now, ok := stateAt(f, limit, p.Path)
		switch {
		case !ok:
		case p.Found != nil && now == *p.Found:
			return false
		case now == p.Left:
			left = true
		}
	}
	return left
}

// stateAt is what the path holds, read through the fence, and whether it could be read:
// no file, or a file's length, checksum and permission bits.
func stateAt(f *fence.Fence, limit int64, p string) (history.PathState, bool) {
	b, err := captureAt(f, limit, p)
	switch {
	case err != nil || b.Dir:
		return history.PathState{}, false
	case !b.Exists:
		return history.PathState{}, true
	}
	return stateOf(b.Bytes, b.Mode), true
}
