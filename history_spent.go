package applypatch

import (
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/turns"
	"github.com/applypatch/applypatch/internal/txn"
)

// spender is what an undo's or a redo's commit offers its journal directory to once it
// is final, when the history is a user's: it is moved into the history's spent
// directory, to be removed beside a later commit's work (see spentStart), instead of
// its backups, one for each file, being removed before the undo returns. That is what a
// commit that records does with its journal too: the history takes it, and drops it as
// it prunes. Where it cannot be moved (another filesystem), the commit removes it.
func (pr *Proposal) spender() func(*txn.Kept) bool {
	if pr.reverts == nil || pr.reverts.history == nil || pr.reverts.history.workspace == "" {
		return nil
	}
	h := pr.reverts.history
	return func(k *txn.Kept) bool {
		s, err := h.opened()
		if err != nil {
			return false
		}
		dir, err := s.SpentDir()
		if err != nil {
			return false
		}
		defer dir.Close()
		return k.MoveTo(dir, newEntryID())
	}
}

// spentStart removes, on a goroutine of its own, the journal directories earlier undos
// and redos left in a user history's spent directory, where it has one, and returns the
// function that waits for it to end. A commit that writes starts it as it begins, so the removal
// overlaps its own work, and waits for it before it becomes final and before it
// returns. A panic on the goroutine is raised again by the first wait, on the commit's
// goroutine, where a commit not yet final rolls back.
func (h *History) spentStart() (wait func()) {
	if h.workspace == "" || !history.HasSpent(h.fsys, h.dir) {
		return func() {}
	}
	return turns.Start(func() { removeSpent(h.fsys, h.dir) })
}

// removeSpent is how a commit removes spent journal directories: history.RemoveSpent,
// but for tests.
var removeSpent = history.RemoveSpent

// before returns f then g, where g may be nil.
func before(f, g func()) func() {
	if g == nil {
		return f
	}
	return func() { f(); g() }
}
