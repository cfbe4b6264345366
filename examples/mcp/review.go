package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

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

// messageBudget bounds the review message, in bytes of UTF-8 (C2).
const messageBudget = 50_000

// errAborted is the outcome of a review the person dismissed.
var errAborted = errors.New("Patch review aborted")

// review runs an ask-mode call as a multi round-trip request: the first invocation
// resolves the patch and asks the person; the client answers and calls again with the
// answer, and the second invocation resolves the patch again, checks that the files are
// still what the person saw, and settles it.
func (s *server) review(ctx context.Context, tool *applypatch.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	text, err := applypatch.ParseToolArgs(args)
	if err != nil {
		return toolResult(errorResult(err)), nil
	}
	answer, answered := req.Params.InputResponses[reviewKey].(*mcp.ElicitResult)
	if !answered {
		return s.ask(ctx, tool, text, args)
	}
	expected, err := s.open(req.Params.RequestState, text)
	if err != nil {
		return toolResult(errorResult(err)), nil
	}
	tool.Options.Expected = expected
	pr, err := tool.Propose(ctx, args)
	if err != nil {
		return toolResult(errorResult(err)), nil
	}
	res, _ := settle(ctx, pr, answer)
	return toolResult(res), nil
}

// ask resolves the patch and returns the question for the person, with the baselines it
// showed them as signed request state.
func (s *server) ask(ctx context.Context, tool *applypatch.Tool, text string, args json.RawMessage) (*mcp.CallToolResult, error) {
	pr, err := tool.Propose(ctx, args)
	if err != nil {
		return toolResult(errorResult(err)), nil
	}
	preview, err := applypatch.Check(ctx, tool.FS, text, &tool.Options)
	if err != nil {
		return toolResult(errorResult(err)), nil
	}
	expected := map[string]applypatch.Snapshot{}
	for _, c := range pr.Changes {
		expected[c.Name()] = c.Base.Snapshot()
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{reviewKey: &mcp.ElicitParams{
			Message:         reviewMessage(preview),
			RequestedSchema: json.RawMessage(decisionSchema),
		}},
		RequestState: s.seal(text, expected),
	}, nil
}

// reviewMessage shows the person what the patch would write.
func reviewMessage(preview *applypatch.Result) string {
	msg := "The agent wants to apply this patch.\n\n" + preview.Summary() + "\n\n" + preview.Body()
	return clip(msg, messageBudget)
}

// clip cuts s to at most limit bytes at a character boundary, ending with a line that
// says so; the line counts within the limit.
func clip(s string, limit int) string {
	const marker = "\n… (cut here: the patch is longer than this message can show)"
	if len(s) <= limit {
		return s
	}
	cut := limit - len(marker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

// A decision is the person's answer.
type decision struct {
	Decision string `json:"decision"`
	Feedback string `json:"feedback"`
}

// settle applies the person's answer to the proposal and commits it: apply writes every
// change (with the comment, if any); reject writes nothing and is an error unless a
// comment asks for a revision; feedback writes nothing and sends the comment (S4).
func settle(ctx context.Context, pr *applypatch.Proposal, answer *mcp.ElicitResult) (*applypatch.Result, error) {
	var d decision
	switch answer.Action {
	case "accept":
		b, _ := json.Marshal(answer.Content)
		if err := json.Unmarshal(b, &d); err != nil {
			return errorResult(errAborted), errAborted
		}
	case "decline":
		d.Decision = "reject"
	default: // "cancel": dismissed without a choice
		return errorResult(errAborted), errAborted
	}
	pr.Feedback = strings.TrimSpace(d.Feedback)
	switch d.Decision {
	case "apply":
	case "reject", "feedback":
		deselectAll(pr)
	default:
		return errorResult(errAborted), errAborted
	}
	return applypatch.Commit(ctx, pr)
}

// deselectAll deselects every change of the proposal.
func deselectAll(pr *applypatch.Proposal) {
	for _, c := range pr.Changes {
		c.Selected = false
		for _, h := range c.Hunks {
			h.Selected = false
		}
	}
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
