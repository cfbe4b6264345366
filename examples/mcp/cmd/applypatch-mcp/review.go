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
	"unicode"

	"github.com/applypatch/applypatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reviewKey names the review question among a call's input requests.
const reviewKey = "review"

// A form is the question an ask-mode tool puts to the person, worded for what the tool
// does: the decisions are the same (see answerReviewer), what they do is not.
type form struct {
	tool    string // the tool the model calls again to be asked again
	choices string // what each decision does, shown with the form
	marker  string // the last line of a diff cut to the card's budget
	empty   error  // the answer to a feedback decision without a comment
}

// patchForm asks about a patch apply_patch was given.
var patchForm = form{
	tool:    "apply_patch",
	choices: "apply: write every change. reject: write nothing. feedback: write nothing and ask the agent to revise the patch.",
	marker:  "[truncated: the rest of the patch does not fit in this message; reject it and ask the agent for smaller patches]",
	empty:   errEmptyFeedback,
}

// schema is the form the person answers: a decision and an optional comment.
func (f form) schema() json.RawMessage {
	choices, _ := json.Marshal(f.choices)
	return json.RawMessage(`{"type":"object","properties":{` +
		`"decision":{"type":"string","title":"Decision","enum":["apply","reject","feedback"],"default":"apply",` +
		`"description":` + string(choices) + `},` +
		`"feedback":{"type":"string","title":"Feedback","description":"A comment for the agent, sent with any decision; feedback needs one."}},` +
		`"required":["decision"]}`)
}

// message shows the person what the call would write: intro with the card's action, a
// paragraph about it if any, the review's header and the diff, cut to the card's budget
// (C2).
func (f form) message(intro, about string, rs *applypatch.Session) string {
	card := rs.Card(applypatch.CardOptions{DiffMarker: f.marker})
	if about != "" {
		intro = fmt.Sprintf("%s (%s).\n\n%s", intro, card.Action, about)
	} else {
		intro = fmt.Sprintf("%s (%s).", intro, card.Action)
	}
	return visible(fmt.Sprintf("%s\n\n%s\n\n%s", intro, rs.View().Header, strings.TrimSuffix(card.Diff, "\n")))
}

// visible makes every character of a message shown to the person visible as itself: a
// client may print the message on a terminal, where a carriage return, an escape
// sequence or a bidirectional override in a file's content or a path would make the
// person see another change than the one applied. Control characters become their
// Unicode pictures (␍, ␛), other invisible formatting characters their code point
// (<U+202E>); line feeds and tabs stay.
func visible(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || !hidden(r):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
	}
	return b.String()
}

// hidden reports whether r is a control or an invisible formatting character: C0 and
// C1 controls, DEL, and the format characters (Cf) such as bidirectional overrides,
// zero-width joiners and the byte order mark.
func hidden(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || unicode.Is(unicode.Cf, r)
}

// question is the call's result that asks the person message, carrying sealed state
// to the answer.
func (f form) question(message, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{reviewKey: &mcp.ElicitParams{
			Message:         message,
			RequestedSchema: f.schema(),
		}},
		RequestState: state,
	}
}

// review runs an ask-mode call. The first invocation resolves the patch and asks the
// person; the answer comes back with the baselines the person saw, and the call runs again
// with the answer as its Reviewer, expecting the files to be exactly what the person saw.
func (s *server) review(ctx context.Context, tool *applypatch.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.Params.Arguments
	text, err := applypatch.ParseToolArgs(args)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	answer, state, early := answerOf(ctx, req, patchForm, func() (*mcp.CallToolResult, error) { return s.ask(ctx, tool, text) })
	if early != nil {
		return early, nil
	}
	d, err := readDecision(answer, patchForm)
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

// answerOf returns the person's answer to the call's question, with the state sealed
// with the question. A call that brings no answer is asked: ask builds the question. A
// client on the current protocol answers by calling again (a multi round-trip request), so
// the question is returned as early, the call's result; an earlier client is asked here,
// so that an answer that cannot be read becomes a tool result the model can act on rather
// than a protocol error. A question that cannot be built is an early error result.
func answerOf(ctx context.Context, req *mcp.CallToolRequest, f form, ask func() (*mcp.CallToolResult, error)) (answer *mcp.ElicitResult, state string, early *mcp.CallToolResult) {
	answer, answered := req.Params.InputResponses[reviewKey].(*mcp.ElicitResult)
	if answered {
		return answer, req.Params.RequestState, nil
	}
	question, err := ask()
	if err != nil {
		return nil, "", toolResult(applypatch.ErrorResult(err))
	}
	if multiRoundTrip(req.Session) {
		return nil, "", question
	}
	answer, err = req.Session.Elicit(ctx, question.InputRequests[reviewKey].(*mcp.ElicitParams))
	if err != nil {
		return nil, "", toolResult(applypatch.ErrorResult(&unreadableAnswer{f.tool, err}))
	}
	return answer, question.RequestState, nil
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
	message := patchForm.message("The agent wants to apply this patch", "", applypatch.NewSession(pr))
	return patchForm.question(message, s.seal(text, expected)), nil
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
// client failed to put to the person. Nothing was written; calling tool again asks again.
type unreadableAnswer struct {
	tool string
	err  error
}

// Error says that nothing was written and how to ask again, with the cause if any.
func (e *unreadableAnswer) Error() string {
	msg := "the user's review answer could not be read, so nothing was written; " +
		"the answer must choose apply, reject or feedback; call " + e.tool + " again to ask again"
	if e.err != nil {
		msg += " (" + e.err.Error() + ")"
	}
	return msg
}

// Unwrap returns the cause.
func (e *unreadableAnswer) Unwrap() error { return e.err }

// readDecision reads the person's answer to f: decline is a reject without comment, cancel
// (dismissed without a choice) is "cancel". An answer that is none of the form's choices,
// and feedback without a comment, are errors saying so.
func readDecision(answer *mcp.ElicitResult, f form) (decision, error) {
	var d decision
	switch answer.Action {
	case "decline":
		return decision{Decision: "reject"}, nil
	case "cancel":
		return decision{Decision: "cancel"}, nil
	case "accept":
		b, _ := json.Marshal(answer.Content)
		if json.Unmarshal(b, &d) != nil || !slices.Contains(choices, d.Decision) {
			return d, &unreadableAnswer{tool: f.tool}
		}
		d.Feedback = strings.TrimSpace(d.Feedback)
		if d.Decision == "feedback" && d.Feedback == "" {
			return d, f.empty
		}
		return d, nil
	}
	return d, &unreadableAnswer{f.tool, fmt.Errorf("unknown action %q", answer.Action)}
}

// choices are the decisions the form offers.
var choices = []string{"apply", "reject", "feedback"}

// reviewState is what the question carries to the answer: what it asked about (the hash
// of the patch, or of the change an undo reverts) and the baselines the person saw.
type reviewState struct {
	Subject  []byte                         `json:"subject"`
	Expected map[string]applypatch.Snapshot `json:"expected"`
	// Nonce makes each question's state its own, so that its answer is taken once: sent
	// again after the change was applied and undone, it would apply the change again
	// without asking.
	Nonce []byte `json:"nonce"`
}

// errStaleAnswer refuses an answer that does not belong to the patch being applied.
var errStaleAnswer = errors.New("the review answer does not belong to this patch; call apply_patch again to review it")

// seal encodes the state of a question about subject and signs it, so that a client
// cannot alter the baselines or reuse an answer for another patch or another change.
func (s *server) seal(subject string, expected map[string]applypatch.Snapshot) string {
	sum := sha256.Sum256([]byte(subject))
	nonce := make([]byte, 16)
	rand.Read(nonce)
	b, _ := json.Marshal(reviewState{Subject: sum[:], Expected: expected, Nonce: nonce})
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(s.mac(b))
}

// open verifies sealed state for the patch text and returns the baselines it carries.
func (s *server) open(state, text string) (map[string]applypatch.Snapshot, error) {
	st, err := s.unseal(state)
	switch {
	case err != nil:
		return nil, err
	case !st.about(text):
		return nil, errStaleAnswer
	}
	return st.Expected, nil
}

// unseal verifies the signature of sealed state and decodes it; what it is about is for
// the caller to check (see reviewState.about).
func (s *server) unseal(state string) (reviewState, error) {
	body, sig, _ := strings.Cut(state, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	var st reviewState
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(b)) || json.Unmarshal(b, &st) != nil || len(st.Nonce) == 0 {
		return reviewState{}, errStaleAnswer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used[string(st.Nonce)] {
		return reviewState{}, errUsedAnswer
	}
	if s.used == nil {
		s.used = map[string]bool{}
	}
	s.used[string(st.Nonce)] = true
	return st, nil
}

// errUsedAnswer refuses an answer sent again: each question is answered once.
var errUsedAnswer = errors.New("this review answer was used already, and an answer counts once; call the tool again to ask the person again")

// about reports whether the state was sealed for subject.
func (st reviewState) about(subject string) bool {
	sum := sha256.Sum256([]byte(subject))
	return hmac.Equal(st.Subject, sum[:])
}

// mac signs b with the server's key.
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
