package einotool

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/applypatch/applypatch"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
)

func init() {
	// The interrupt's info and state are kept in Eino checkpoints.
	schema.RegisterName[*ReviewRequest]("applypatch_einotool_review_request")
	schema.RegisterName[*PendingReview]("applypatch_einotool_pending_review")
}

// A ReviewRequest is the info of the interrupt a call paused with: what the person who
// decides the call is shown.
type ReviewRequest struct {
	// CallID is the model's tool call ID.
	CallID string
	// Header is the review's header, e.g. "ApplyPatch · 1 file · 2/2 changes · +2 −2".
	Header string
	// Review is the whole review as plain text, as a terminal shows it: the header, one
	// row per file and hunk with its lines, and the actions.
	Review string
	// Card is the review as a remote surface shows it: the selected diff as a patch, the
	// action label and a notice.
	Card applypatch.Card
	// Choices are the rows a [Decision] can name in Only: every file and, under an
	// Update, every changing hunk.
	Choices []Choice
}

// A Choice is one row of a review: its target and its line as the review shows it.
type Choice struct {
	// Target names the row in a Decision: File from 1, and Hunk from 1 for a hunk row.
	Target applypatch.Target
	// Row is the row's line, e.g. "    ✓ @@ func main() +1 −1".
	Row string
}

// PendingReview is the interrupt state of a paused call: the saved review and the
// request it was shown as.
type PendingReview struct {
	// Saved is the review as [applypatch.Session.Save] saved it.
	Saved []byte
	// Request is the interrupt info, shown again while another interrupt is resumed.
	Request *ReviewRequest
}

// A Decision is a person's answer to a [ReviewRequest], the data to resume its interrupt
// with (compose.ResumeWithData). The zero Decision applies the whole patch.
type Decision struct {
	// Reject rejects the whole patch: nothing is written and the model is told so.
	Reject bool `json:"reject,omitempty"`
	// Only, when not empty, applies just these targets (a whole file, or one hunk of an
	// Update, as the request's Choices name them) and rejects the rest.
	Only []applypatch.Target `json:"only,omitempty"`
	// Feedback is text for the model. Alone it requests a revision: nothing is written
	// and the model gets the feedback. With Only it goes along with the applied part.
	Feedback string `json:"feedback,omitempty"`
}

// settle drives a restored review to the decision: the Reviewer of the resumed call.
func (d Decision) settle(ctx context.Context, s *applypatch.Session) error {
	switch {
	case d.Reject:
		return s.Reject()
	case len(d.Only) == 0 && d.Feedback != "":
		_, err := s.CardFeedback(ctx, d.Feedback)
		return err
	case len(d.Only) > 0:
		if err := s.Select(applypatch.Target{}, false, nil); err != nil {
			return fmt.Errorf("clearing the selection: %w", err)
		}
		for _, t := range d.Only {
			if err := s.Select(t, true, applypatch.DiscardFeedback); err != nil {
				return fmt.Errorf("selecting %+v: %w", t, err)
			}
		}
		if err := s.SetFeedback(applypatch.Target{}, d.Feedback); err != nil {
			return fmt.Errorf("staging the feedback: %w", err)
		}
	}
	_, err := s.Submit(ctx)
	return err
}

// A Pending is one paused apply_patch call of an interrupted run.
type Pending struct {
	// ID is the interrupt ID to resume with: compose.ResumeWithData(ctx, ID, decision).
	ID string
	// Request is what the person is shown.
	Request *ReviewRequest
}

// Reviews returns the paused apply_patch calls of the error an interrupted run returned;
// none for any other error.
func Reviews(err error) []Pending {
	info, ok := compose.ExtractInterruptInfo(err)
	if !ok {
		return nil
	}
	var out []Pending
	for _, ic := range info.InterruptContexts {
		if req, ok := ic.Info.(*ReviewRequest); ok && ic.IsRootCause {
			out = append(out, Pending{ID: ic.ID, Request: req})
		}
	}
	return out
}

// Resumable compiles a ReAct agent's graph with a checkpoint store, so that a run a
// review paused can be resumed: run it with compose.WithCheckPointID, and run it again
// with the same ID and a context from compose.ResumeWithData.
func Resumable(ctx context.Context, agent *react.Agent, store compose.CheckPointStore) (compose.Runnable[[]*schema.Message, *schema.Message], error) {
	g, opts := agent.ExportGraph()
	chain := compose.NewChain[[]*schema.Message, *schema.Message]()
	chain.AppendGraph(g, opts...)
	r, err := chain.Compile(ctx, compose.WithCheckPointStore(store))
	if err != nil {
		return nil, fmt.Errorf("compiling the resumable agent: %w", err)
	}
	return r, nil
}

// MemoryStore is a compose.CheckPointStore in memory, for tests and single-process
// hosts; a host that resumes after a restart keeps checkpoints in its own database.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Get returns the checkpoint saved under id.
func (s *MemoryStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

// Set saves a checkpoint under id.
func (s *MemoryStore) Set(_ context.Context, id string, cp []byte) error {
	if id == "" {
		return errors.New("a checkpoint needs an ID")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = append([]byte(nil), cp...)
	return nil
}
