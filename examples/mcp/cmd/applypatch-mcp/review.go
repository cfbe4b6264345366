package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reviewKey names the review question among a call's input requests.
const reviewKey = "review"

// decisionSchema is the form the person answers: a decision and an optional comment.
const decisionSchema = `{"type":"object","properties":{` +
	`"decision":{"type":"string","title":"Decision","enum":["apply","reject","feedback"],"default":"apply",` +
	`"description":"apply: write every change. reject: write nothing. feedback: write nothing and ask the agent to revise the patch."},` +
	`"feedback":{"type":"string","title":"Feedback","description":"A comment for the agent, sent with any decision; feedback needs one."}},` +
	`"required":["decision"]}`

// review runs an ask-mode call. The first invocation resolves the patch and asks the
// person; the answer comes back with the baselines the person saw, and the call runs again
// with the answer as its Reviewer, expecting the files to be exactly what the person saw.
// A client on the current protocol answers by calling again (a multi round-trip request);
// an earlier client is asked here, so that an answer that cannot be read becomes a tool
// result the model can act on rather than a protocol error.
func (s *server) review(ctx context.Context, tool *applypatch.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	text, err := applypatch.ParseToolArgs(args)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	answer, answered := req.Params.InputResponses[reviewKey].(*mcp.ElicitResult)
	state := req.Params.RequestState
	if !answered {
		question, err := s.ask(ctx, tool, text)
		if err != nil {
			return toolResult(applypatch.ErrorResult(err)), nil
		}
		if multiRoundTrip(req.Session) {
			return question, nil
		}
		if answer, err = req.Session.Elicit(ctx, question.InputRequests[reviewKey].(*mcp.ElicitParams)); err != nil {
			return toolResult(applypatch.ErrorResult(&unreadableAnswer{err})), nil
		}
		state = question.RequestState
	}
	d, err := readDecision(answer)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	expected, err := s.open(state, text)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	tool.Options.Expected = expected
	tool.Reviewer = answerReviewer(d)
	_, res, _ := tool.Call(ctx, args)
	return toolResult(res), nil
}

// multiRoundTripVersion is the first protocol version whose clients answer a question by
// calling the tool again.
const multiRoundTripVersion = "2026-07-28"

// multiRoundTrip reports whether the client answers questions by calling again.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= multiRoundTripVersion
}

// ask resolves the patch and returns the question for the person, with the baselines it
// showed them as signed request state.
func (s *server) ask(ctx context.Context, tool *applypatch.Tool, text string) (*mcp.CallToolResult, error) {
	pr, err := applypatch.ResolvePayload(ctx, tool.FS, text, &tool.Options)
	if err != nil {
		return nil, err
	}
	expected := pr.Snapshots() // by authored path: no host path leaves the server (F5)
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{reviewKey: &mcp.ElicitParams{
			Message:         reviewMessage(applypatch.NewSession(pr)),
			RequestedSchema: json.RawMessage(decisionSchema),
		}},
		RequestState: s.seal(text, expected),
	}, nil
}

// reviewMessage shows the person what the patch would write: the review's header and the
// patch, cut to the card's budget (C2).
func reviewMessage(rs *applypatch.Session) string {
	card := rs.Card(applypatch.CardOptions{DiffMarker: "[truncated: the rest of the patch does not fit in this message; reject it and ask the agent for smaller patches]"})
	return fmt.Sprintf("The agent wants to apply this patch (%s).\n\n%s\n\n%s", card.Action, rs.View().Header, strings.TrimSuffix(card.Diff, "\n"))
}

// A decision is the person's answer.
type decision struct {
	Decision string `json:"decision"`
	Feedback string `json:"feedback"`
}

// answerReviewer settles the review as the person answered: apply submits every change
// (with the comment as whole-patch feedback, if any); reject writes nothing, and a comment
// makes it a revision request rather than a rejection (S4); feedback writes nothing and
// sends the comment. Dismissing the form (cancel) aborts the review.
func answerReviewer(d decision) applypatch.Reviewer {
	return applypatch.ReviewerFunc(func(ctx context.Context, rs *applypatch.Session) error {
		switch {
		case d.Decision == "cancel":
			rs.Abort()
			return nil
		case d.Decision == "apply":
			if d.Feedback != "" {
				if err := rs.SetFeedback(applypatch.Target{}, d.Feedback); err != nil {
					return err
				}
			}
			_, err := rs.Submit(ctx)
			return err
		case d.Feedback == "":
			return rs.Reject()
		}
		_, err := rs.CardFeedback(ctx, d.Feedback)
		return err
	})
}

// errEmptyFeedback explains a feedback decision that carries no comment.
var errEmptyFeedback = errors.New("the user chose to send feedback but left the comment empty, " +
	"so nothing was written and there is nothing to revise by; ask the user what to change, " +
	"then call apply_patch again with a revised patch")

// An unreadableAnswer is an answer that is none of the form's choices, or a question the
// client failed to put to the person. Nothing was written.
type unreadableAnswer struct{ err error }

func (e *unreadableAnswer) Error() string {
	msg := "the user's review answer could not be read, so nothing was written; " +
		"the answer must choose apply, reject or feedback; call apply_patch again to ask again"
	if e.err != nil {
		msg += " (" + e.err.Error() + ")"
	}
	return msg
}

func (e *unreadableAnswer) Unwrap() error { return e.err }

// readDecision reads the person's answer: decline is a reject without comment, cancel
// (dismissed without a choice) is "cancel". An answer that is none of the form's choices,
// and feedback without a comment, are errors saying so.
func readDecision(answer *mcp.ElicitResult) (decision, error) {
	var d decision
	switch answer.Action {
	case "decline":
		return decision{Decision: "reject"}, nil
	case "cancel":
		return decision{Decision: "cancel"}, nil
	case "accept":
		b, _ := json.Marshal(answer.Content)
		if json.Unmarshal(b, &d) != nil || !slices.Contains(choices, d.Decision) {
			return d, &unreadableAnswer{}
		}
		d.Feedback = strings.TrimSpace(d.Feedback)
		if d.Decision == "feedback" && d.Feedback == "" {
			return d, errEmptyFeedback
		}
		return d, nil
	}
	return d, &unreadableAnswer{fmt.Errorf("unknown action %q", answer.Action)}
}

// choices are the decisions the form offers.
var choices = []string{"apply", "reject", "feedback"}

// reviewState is what the question carries to the answer: the patch it asked about and
// the baselines the person saw.
type reviewState struct {
	Patch    []byte                         `json:"patch"`
	Expected map[string]applypatch.Snapshot `json:"expected"`
}

// errStaleAnswer refuses an answer that does not belong to the patch being applied.
var errStaleAnswer = errors.New("the review answer does not belong to this patch; call apply_patch again to review it")

// seal encodes the state of a question and signs it, so that a client cannot alter the
// baselines or reuse an answer for another patch.
func (s *server) seal(text string, expected map[string]applypatch.Snapshot) string {
	sum := sha256.Sum256([]byte(text))
	b, _ := json.Marshal(reviewState{Patch: sum[:], Expected: expected})
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.mac(b))
}

// open verifies sealed state for the patch text and returns the baselines it carries.
func (s *server) open(state, text string) (map[string]applypatch.Snapshot, error) {
	body, sig, _ := strings.Cut(state, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	var st reviewState
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(b)) || json.Unmarshal(b, &st) != nil {
		return nil, errStaleAnswer
	}
	if sum := sha256.Sum256([]byte(text)); !hmac.Equal(st.Patch, sum[:]) {
		return nil, errStaleAnswer
	}
	return st.Expected, nil
}

func (s *server) mac(b []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return m.Sum(nil)
}

// newKey returns a fresh signing key; state from an earlier run of the server is refused.
func newKey() []byte {
	key := make([]byte, 32)
	rand.Read(key) // never fails: it crashes the program instead
	return key
}
