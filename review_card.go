package applypatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/applypatch/applypatch/internal/lines"
)

// Default byte budgets of a card's diff and notice, in bytes of UTF-8.
const (
	defaultCardDiffBytes   = 50_000
	defaultCardNoticeBytes = 4_000
)

// Card texts. Conflict details stay in the full review: they may name private
// host paths.
const (
	cardNative        = "A read-only preview of the selected changes; the person reviewing the patch chooses and edits them."
	cardNothing       = "Nothing is selected: applying now rejects the patch."
	cardParentActive  = "Warning: the parent request is still active; applying this patch affects its workspace."
	cardConflict      = "Warning: files changed on disk since the review began, and nothing was written. Inspect the conflict in the full review, or request a revision."
	cardIncomplete    = "Warning: the last attempt failed and could not restore every file. Inspect the full review before retrying."
	cardFailed        = "Warning: the last attempt failed and wrote nothing. Inspect the full review, or request a revision."
	cardApplying      = "ApplyPatch is being applied."
	cardSettled       = "This review has settled: "
	cardDiffMarker    = "[truncated: the rest of the diff is in the full review]"
	cardNoticeMarker  = "[truncated: the rest of the notes are in the full review]"
	cardMarkerNewline = "\n"
)

// CardOptions configure [Session.Card].
type CardOptions struct {
	// DiffBytes and NoticeBytes are the budgets of the diff and the notice, in bytes of
	// UTF-8; zero means the default.
	DiffBytes, NoticeBytes int
	// ParentActive adds the warning that the request that asked for this patch is still
	// running in the same workspace (a side conversation).
	ParentActive bool
	// DiffMarker and NoticeMarker are the last lines of a diff or notice cut to its
	// budget, counted inside it; empty means the default, which points to the full
	// review. A surface that is the only review (an MCP elicitation) says something else.
	DiffMarker, NoticeMarker string
}

// A Card is the review as a second, remote surface shows it: a web page, a chat
// guest, a phone. It is plain data, computed from the session on every call.
type Card struct {
	// Diff is the selected change as a payload: adopted revisions included, locators and
	// deselected hunks left out, paths as authored. Empty when nothing is selected.
	Diff string `json:"diff"`
	// Action is the label of the card's one action, the same as the full review's
	// primary action; empty while the patch is applied and after the review settled.
	Action string `json:"action,omitempty"`
	// Notice says that selection and editing happen in the full review, then warnings,
	// then staged feedback and rejection notes.
	Notice string `json:"notice"`
	// Feedback reports whether the card takes feedback now (see [Session.CardFeedback]).
	Feedback bool `json:"feedback"`
	// Hash identifies the content: republish the card only when it changes. Folding
	// never changes it.
	Hash string `json:"hash"`
}

// Card returns the review's collaboration card.
func (s *Session) Card(opts CardOptions) Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	var card Card
	switch s.state {
	case StateSubmitting:
		card.Notice = cardApplying
	case StateSettled:
		card.Notice = cardSettled + s.result.Summary()
	default:
		card = Card{Diff: format(s.pr.selectedPatch()), Action: s.tally().Action, Notice: s.cardNotice(opts), Feedback: true}
		if card.Diff == format(&Patch{}) {
			card.Diff = ""
		}
	}
	card.Diff = cutBytes(card.Diff, budget(opts.DiffBytes, defaultCardDiffBytes), orDefault(opts.DiffMarker, cardDiffMarker))
	card.Notice = cutBytes(card.Notice, budget(opts.NoticeBytes, defaultCardNoticeBytes), orDefault(opts.NoticeMarker, cardNoticeMarker))
	sum := sha256.Sum256([]byte(fmt.Sprintf("%q %q %q %t", card.Diff, card.Action, card.Notice, card.Feedback)))
	card.Hash = hex.EncodeToString(sum[:])
	return card
}

func budget(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// cardNotice builds the notice. s.mu is held.
func (s *Session) cardNotice(opts CardOptions) string {
	lines := []string{cardNative}
	if s.tally().Selected == 0 && s.pr.comments() == 0 {
		lines = append(lines, cardNothing)
	}
	if opts.ParentActive {
		lines = append(lines, cardParentActive)
	}
	switch {
	case s.conflict == nil:
	case errors.As(s.conflict, new(*IncompleteRollbackError)):
		lines = append(lines, cardIncomplete)
	case errors.Is(s.conflict, &ConflictError{}):
		lines = append(lines, cardConflict)
	default:
		lines = append(lines, cardFailed)
	}
	return strings.Join(append(lines, s.pr.reviewNotes()...), "\n")
}

// reviewNotes are the staged feedback and rejection lines, in the result's grammar.
func (pr *Proposal) reviewNotes() []string {
	var out []string
	if pr.feedback != "" {
		out = append(out, feedbackLine("", 0, pr.feedback))
	}
	for _, c := range pr.changes {
		if c.divisible() {
			for k, h := range c.changing() {
				if !h.Selected {
					out = append(out, rejectedLine(c.Op.Path, k+1))
				}
				if h.Feedback != "" {
					out = append(out, feedbackLine(c.Op.Path, k+1, h.Feedback))
				}
			}
		} else if !c.Selected {
			out = append(out, rejectedLine(c.Op.Path, 0))
		}
		if c.Feedback != "" {
			out = append(out, feedbackLine(c.Op.Path, 0, c.Feedback))
		}
	}
	return out
}

// selectedPatch is the patch the current selection applies: every selected operation with
// its selected changing hunks (all of a Move's), paths as authored.
func (pr *Proposal) selectedPatch() *Patch {
	p := &Patch{}
	for _, c := range pr.changes {
		if !c.hasSelection() {
			continue
		}
		op := c.Op
		op.Hunks = nil
		for _, h := range c.changing() {
			if c.applies(h) {
				op.Hunks = append(op.Hunks, h.asInFile(c.text))
			}
		}
		p.Ops = append(p.Ops, op)
	}
	return p
}

// asInFile is the hunk with its context and '-' lines as the file has them where it was
// placed: after a fuzzy match they differ from the model's copy, and a card shows what
// the review's diff shows. Its '+' lines are the model's, as written.
func (h *hunkChange) asInFile(t *lines.Text) Hunk {
	if t == nil || !h.Place.Pass.Fuzzy() {
		return h.Hunk
	}
	out := h.Hunk
	out.Lines = slices.Clone(h.Lines)
	k := 0
	for i, l := range out.Lines {
		if l.Kind == LineAdd {
			continue
		}
		if k < h.Place.Len && h.Place.Start+k < t.Count() {
			out.Lines[i].Text = t.Line(h.Place.Start + k)
		}
		k++
	}
	return out
}

// cutBytes keeps s within budget bytes of UTF-8: a longer s is cut at a character
// boundary and ends with a line holding marker, counted inside the budget.
func cutBytes(s string, budget int, marker string) string {
	if len(s) <= budget {
		return s
	}
	tail := cardMarkerNewline + marker
	keep := budget - len(tail)
	if keep < 0 { // a budget smaller than the marker: the marker alone, cut to fit
		tail, keep = marker, 0
		for len(tail) > budget {
			_, size := utf8.DecodeLastRuneInString(tail)
			tail = tail[:len(tail)-size]
		}
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + tail
}

// CardFeedback takes feedback sent from the card: a whole-patch revision request.
// It stages text as whole-patch feedback, deselects every change (feedback already staged
// on hunks and files stays) and submits, so the model gets "Patch revision requested".
// Blank text is refused. Like every request it is refused once the review is submitting
// or settled: the first answer, native or remote, wins.
func (s *Session) CardFeedback(ctx context.Context, text string) (*Result, error) {
	s.mu.Lock()
	if err := s.writable(Target{}); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	text = normalizeFeedback(text)
	if text == "" {
		s.mu.Unlock()
		return nil, reviewErr(reviewEmptyFeedback, Target{}, "write what the model should change")
	}
	s.pr.feedback = text
	deselect(s.units(nil, nil))
	s.state, s.conflict = StateSubmitting, nil
	s.committing.Add(1)
	s.mu.Unlock()
	return s.commit(ctx)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
