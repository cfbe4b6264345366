package applypatch

import (
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/overlap"
	"github.com/applypatch/applypatch/internal/turns"
)

// draftMin is the smallest payload whose history entry a commit begins as it starts to
// write: below it, writing the payload takes less than handing it to a goroutine.
const draftMin = 64 << 10

// An entryDraft is the history entry of a commit, begun on a goroutine of its own as the
// commit starts (see history.Draft): the payload, which a large change's entry is mostly
// made of, is written while the commit checks its baselines and writes its journal,
// leaving the entry recorded once the commit is final only what the commit decided.
type entryDraft struct {
	wait  func()
	draft *history.Draft
}

// draftEntry is the history entry of the commit of a proposal that records one in h:
// begun already where [Apply] began it as the payload parsed, else begun now (see
// beginDraft). A commit that writes nothing, an undo and a redo record no entry.
func (pr *Proposal) draftEntry(h *History) *entryDraft {
	switch {
	case h == nil, pr.reverts != nil:
		return nil
	case pr.draft != nil:
		return pr.draft
	}
	return beginDraft(h, pr.payload)
}

// beginDraft begins the history entry of a commit of payload in h, where that can pay
// and is safe: a large payload, a second processor and a history on a filesystem safe for
// concurrent use. It returns nil where it begins none.
func beginDraft(h *History, payload string) *entryDraft {
	if h == nil || len(payload) < draftMin || !overlap.Possible(h.fsys) {
		return nil
	}
	s, err := h.writing()
	if err != nil {
		return nil
	}
	ed := &entryDraft{}
	ed.wait = turns.Start(func() { ed.draft = s.Begin(payload) })
	return ed
}

// take waits for the draft to be written and returns it; nil where none was begun.
func (ed *entryDraft) take() *history.Draft {
	if ed == nil {
		return nil
	}
	ed.wait()
	return ed.draft
}

// discard removes the draft, unless an entry was recorded from it.
func (ed *entryDraft) discard() { ed.take().Discard() }
