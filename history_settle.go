package applypatch

import (
	"fmt"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/txn"
)

// noteRevert returns what an undo's or a redo's commit does just before it becomes
// final: note in the history what it leaves at each path of the plan, so that a process
// stopped before it marks the entry leaves the history a way to tell (see
// settleReverts). A note that cannot be written costs only that.
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
			Left: make([]history.Left, 0, len(plan))}
		if rv.undo {
			n.Made = rv.made
		}
		for _, st := range plan {
			l := history.Left{Path: st.Path}
			if st.Op == txn.Write {
				l.Exists, l.Mode = true, keptMode(st.Mode)
				l.Len, l.CRC = st.Written()
			}
			n.Left = append(n.Left, l)
		}
		s.NoteRevert(n)
	}
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

// settleReverts settles the notes of undos and redos whose process stopped after they
// became final and before the history marked them, or before they became final (and
// recovery undid them): where every path of the workspace holds what a note says the
// revert left, its entry is marked as the revert would have marked it, and an undo's
// empty directories go; the note is dropped either way. Notes of other workspaces are
// left to theirs. It returns what it marked, one sentence each. The caller holds the
// workspace's lock, and has recovered its journals.
func settleReverts(f *fence.Fence, opts *Options) []string {
	if opts == nil || opts.History == nil {
		return nil
	}
	s, err := opts.History.opened()
	if err != nil {
		return nil
	}
	limit := opts.Limits.withDefaults().FileBytes
	var told []string
	for _, n := range s.RevertNotes() {
		if n.Workspace != f.Real() {
			continue
		}
		if leftAll(f, limit, n.Left) {
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
	return fmt.Sprintf("the %s of the change %s had finished when its process was stopped, before the history "+
		"said so; the history now does: %s", verb, n.ID, next)
}

// settleUnlocked is settleReverts without the workspace's lock, as an undo or a redo
// is proposed: it settles nothing while a journal is in the workspace (a commit running,
// or one stopped that recovery has yet to undo), whose revert may not be final yet.
func settleUnlocked(fsys afero.Fs, opts *Options) {
	if opts == nil || opts.History == nil {
		return
	}
	if s, err := opts.History.opened(); err != nil || len(s.RevertNotes()) == 0 {
		return
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return
	}
	if key, err := txn.Key(fsys, txnConfigOf(opts)); err == nil && !txn.Pending(f, key).Pending {
		settleReverts(f, opts)
	}
}

// leftAll reports whether every path holds what a revert left there.
func leftAll(f *fence.Fence, limit int64, left []history.Left) bool {
	for _, l := range left {
		if !holdsLeft(f, limit, l) {
			return false
		}
	}
	return true
}

// holdsLeft reports whether the path of l, read through the fence, holds what l says:
// no file, or a file of its length, checksum and permission bits.
func holdsLeft(f *fence.Fence, limit int64, l history.Left) bool {
	r, err := f.Classify(l.Path, false)
	if err != nil {
		return false
	}
	b, err := filestate.Capture(f.Files(), r.Name, l.Path, limit, filestate.Stamps{})
	switch {
	case err != nil:
		return false
	case !l.Exists:
		return !b.Exists
	}
	return b.Exists && !b.Dir && int64(len(b.Bytes)) == l.Len && history.Checksum(b.Bytes) == l.CRC &&
		keptMode(b.Mode) == l.Mode
}
