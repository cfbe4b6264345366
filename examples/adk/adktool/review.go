package adktool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch"
	"google.golang.org/adk/agent"
)

// A Request is the confirmation payload: the review card, what a person sees before any
// file is written.
type Request struct {
	// Header sums the patch up: "ApplyPatch · 2 files · 3/3 changes · +3 −1".
	Header string `json:"header"`
	// Action is the label of applying it: "Apply 3 changes in 2 files".
	Action string `json:"action"`
	// Diff is the patch as it would be applied, paths as the model wrote them.
	Diff string `json:"diff"`
	// Notice holds the review's warnings and notes.
	Notice string `json:"notice,omitempty"`
	// Changes lists what a Decision can select: each file and each hunk of an Update.
	Changes []Change `json:"changes"`
	// Hash identifies the card's content.
	Hash string `json:"hash"`
}

// A Change is one row of the card: a file, or a hunk of an updated file.
type Change struct {
	// Target is what a Decision's Select names to apply this change.
	Target applypatch.Target `json:"target"`
	// Status is the file's letter: "A" add, "M" update, "D" delete, "R" move.
	Status string `json:"status"`
	// Path is the file as the model wrote it.
	Path string `json:"path"`
	// Label names a hunk: its "@@" anchor or the heading above it.
	Label string `json:"label,omitempty"`
	// Counts are the lines added and removed, "+1 −1".
	Counts string `json:"counts,omitempty"`
}

// Decisions a person can send back.
const (
	// DecisionApply writes the selected changes: every change, or those of Select.
	DecisionApply = "apply"
	// DecisionReject writes nothing; with Feedback it asks the model to revise instead.
	DecisionReject = "reject"
	// DecisionFeedback writes nothing and sends Feedback to the model to revise by.
	DecisionFeedback = "feedback"
)

// A Decision is the person's answer, the payload of a confirmation with Confirmed set.
// (Confirmed false is a rejection, which ADK returns to the model itself.)
type Decision struct {
	// Decision is DecisionApply (the default when empty), DecisionReject or
	// DecisionFeedback.
	Decision string `json:"decision,omitempty"`
	// Select, when not empty, applies only these targets of the card's Changes.
	Select []applypatch.Target `json:"select,omitempty"`
	// Feedback is a comment for the model, sent with any decision.
	Feedback string `json:"feedback,omitempty"`
}

// pending is what the question leaves in the session state for the answer: the patch
// asked about and the files as the person saw them.
type pending struct {
	Patch    string                         `json:"patch"`
	Expected map[string]applypatch.Snapshot `json:"expected"`
}

// stateKey is the session-state key of the question a function call asked.
func stateKey(callID string) string { return "applypatch:review:" + callID }

// digest identifies a patch text.
func digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// hint is the confirmation's hint, the line a client shows above the card.
const hint = "apply_patch wants to change files. Confirm with a payload " +
	`{"decision": "apply"|"reject"|"feedback", "select": [{"file": 1, "hunk": 1}], "feedback": "..."}; ` +
	"confirmed false rejects the patch."

// ask resolves the patch, writing nothing, and asks the person with its card. The files
// as they are now go to the session state, where the confirmed run finds them.
func (h *handler) ask(ctx agent.ToolContext, text string) Output {
	pr, err := applypatch.ResolvePayload(ctx, h.tool.FS, text, &h.tool.Options)
	if err != nil {
		return outputOf(applypatch.ErrorResult(err))
	}
	st, err := json.Marshal(pending{Patch: digest(text), Expected: pr.Snapshots()})
	if err == nil {
		err = ctx.State().Set(stateKey(ctx.FunctionCallID()), string(st))
	}
	if err == nil {
		err = ctx.RequestConfirmation(hint, requestOf(applypatch.NewSession(pr)))
	}
	if err != nil {
		return outputOf(applypatch.ErrorResult(fmt.Errorf("the review could not be requested: %w", err)))
	}
	return Output{Status: StatusPending, Output: pendingText}
}

// requestOf builds the card of a review.
func requestOf(rs *applypatch.Session) Request {
	card, view := rs.Card(applypatch.CardOptions{}), rs.View()
	// The notice's first line says a full review elsewhere chooses the changes; here the
	// card is the review, so only the warnings and notes after it are kept.
	_, notice, _ := strings.Cut(card.Notice, "\n")
	req := Request{Header: view.Header, Action: card.Action, Diff: card.Diff, Notice: notice, Hash: card.Hash}
	var file Change
	for _, row := range view.Rows {
		c := Change{Target: row.Target, Status: row.Status, Path: row.Path, Label: row.Label, Counts: row.Counts}
		if c.Target.Hunk == 0 {
			file = c
		} else {
			c.Status, c.Path = file.Status, file.Path // a hunk row names its file
		}
		req.Changes = append(req.Changes, c)
	}
	return req
}

// errStale refuses an answer to no question of this call, or to another patch.
var errStale = errors.New("the user's answer belongs to no review of this patch, so nothing was written; call apply_patch again to ask again")

// decide applies the person's answer to the question this call asked: it resolves the
// patch again, expecting every file exactly as the person saw it, and settles the
// review as the decision says. The question is then used up.
func (h *handler) decide(ctx agent.ToolContext, text string, confirmed bool, payload any) *applypatch.Result {
	key := stateKey(ctx.FunctionCallID())
	var p pending
	v, err := ctx.State().Get(key)
	s, _ := v.(string)
	if err != nil || s == "" || json.Unmarshal([]byte(s), &p) != nil || p.Patch != digest(text) {
		return applypatch.ErrorResult(errStale)
	}
	if err := ctx.State().Set(key, ""); err != nil {
		return applypatch.ErrorResult(fmt.Errorf("the review could not be closed: %w", err))
	}
	d, err := decisionOf(confirmed, payload)
	if err != nil {
		return applypatch.ErrorResult(err)
	}
	opts := h.tool.Options
	opts.Expected = p.Expected
	pr, err := applypatch.ResolvePayload(ctx, h.tool.FS, text, &opts)
	if err != nil {
		return applypatch.ErrorResult(err)
	}
	res, _ := applypatch.Review(ctx, pr, d.reviewer())
	return res
}

// decisionOf reads the confirmation's payload; a confirmation without one applies
// everything, and Confirmed false rejects.
func decisionOf(confirmed bool, payload any) (Decision, error) {
	var d Decision
	if payload != nil {
		b, err := json.Marshal(payload)
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		if err != nil {
			return d, fmt.Errorf("the user's answer could not be read, so nothing was written: %w", err)
		}
	}
	if !confirmed {
		d.Decision = DecisionReject
	}
	d.Feedback = strings.TrimSpace(d.Feedback)
	switch d.Decision {
	case "", DecisionApply, DecisionReject:
	case DecisionFeedback:
		if d.Feedback == "" {
			return d, errors.New("the user chose feedback but wrote none, so nothing was written; ask them what to change")
		}
	default:
		return d, fmt.Errorf("the user's answer %q is not apply, reject or feedback, so nothing was written", d.Decision)
	}
	return d, nil
}

// reviewer settles a review as the decision says.
func (d Decision) reviewer() applypatch.Reviewer {
	return applypatch.ReviewerFunc(func(ctx context.Context, rs *applypatch.Session) error {
		if d.Decision == DecisionReject && d.Feedback == "" {
			return rs.Reject()
		}
		if d.Decision != "" && d.Decision != DecisionApply {
			_, err := rs.CardFeedback(ctx, d.Feedback)
			return err
		}
		if len(d.Select) > 0 {
			if err := rs.Select(applypatch.Target{}, false, nil); err != nil {
				return fmt.Errorf("clearing the selection: %w", err)
			}
			for _, t := range d.Select {
				if err := rs.Select(t, true, applypatch.DiscardFeedback); err != nil {
					return fmt.Errorf("selecting file %d hunk %d: %w", t.File, t.Hunk, err)
				}
			}
		}
		if d.Feedback != "" {
			if err := rs.SetFeedback(applypatch.Target{}, d.Feedback); err != nil {
				return fmt.Errorf("staging the feedback: %w", err)
			}
		}
		_, err := rs.Submit(ctx)
		return err
	})
}
