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
	`"feedback":{"type":"string","title":"Feedback","description":"A comment for the agent, sent with any decision."}},` +
	`"required":["decision"]}`

// review runs an ask-mode call as a multi round-trip request: the first invocation
// resolves the patch and asks the person; the client answers and calls again with the
// answer, and the second invocation runs the call again with the answer as its Reviewer,
// expecting the files to be exactly what the person saw.
func (s *server) review(ctx context.Context, tool *applypatch.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	text, err := applypatch.ParseToolArgs(args)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	answer, answered := req.Params.InputResponses[reviewKey].(*mcp.ElicitResult)
	if !answered {
		return s.ask(ctx, tool, text, args)
	}
	expected, err := s.open(req.Params.RequestState, text)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	tool.Options.Expected = expected
	tool.Reviewer = answerReviewer(answer)
	_, res, _ := tool.Call(ctx, args)
	return toolResult(res), nil
}

// ask resolves the patch and returns the question for the person, with the baselines it
// showed them as signed request state.
func (s *server) ask(ctx context.Context, tool *applypatch.Tool, text string, args json.RawMessage) (*mcp.CallToolResult, error) {
	pr, err := tool.Propose(ctx, args)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
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
	return fmt.Sprintf("The agent wants to apply this patch (%s).\n\n%s\n\n%s", card.Action, rs.Tally().Header(), strings.TrimSuffix(card.Diff, "\n"))
}

// A decision is the person's answer.
type decision struct {
	Decision string `json:"decision"`
	Feedback string `json:"feedback"`
}

// answerReviewer settles the review as the person answered: apply submits every change
// (with the comment as whole-patch feedback, if any); reject and feedback write nothing,
// and a comment makes them a revision request rather than a rejection (S4). A dismissed
// form, or one that cannot be read, aborts the review.
func answerReviewer(answer *mcp.ElicitResult) applypatch.Reviewer {
	return applypatch.ReviewerFunc(func(ctx context.Context, rs *applypatch.Session) error {
		d, ok := readDecision(answer)
		if !ok {
			rs.Abort()
			return nil
		}
		if d.Decision == "apply" {
			if d.Feedback != "" {
				if err := rs.SetFeedback(applypatch.WholePatch, d.Feedback); err != nil {
					return err
				}
			}
			_, err := rs.Submit(ctx)
			return err
		}
		if d.Feedback == "" {
			return rs.Reject()
		}
		_, err := rs.CardFeedback(ctx, d.Feedback)
		return err
	})
}

// readDecision reads the person's answer; decline is a reject without comment.
func readDecision(answer *mcp.ElicitResult) (decision, bool) {
	var d decision
	switch answer.Action {
	case "decline":
		return decision{Decision: "reject"}, true
	case "accept":
		b, _ := json.Marshal(answer.Content)
		if json.Unmarshal(b, &d) != nil {
			return d, false
		}
		d.Feedback = strings.TrimSpace(d.Feedback)
		return d, d.Decision == "apply" || d.Decision == "reject" || d.Decision == "feedback"
	}
	return d, false // "cancel": dismissed without a choice
}

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
