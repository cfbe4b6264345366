// Package einotool offers applypatch's apply_patch tool to agents built with CloudWeGo
// Eino (github.com/cloudwego/eino): a [tool.InvokableTool] for a ToolsNode, as a ReAct
// agent runs one.
//
// Every call goes through [applypatch.Tool]: the patch is fenced to the workspace, placed
// hunk by hunk or refused, and written as one transaction; the model reads the result
// text, and a refusal is a result too, never a Go error that would stop the graph.
//
// In ask mode (Options.Mode is [applypatch.ModeAsk] or unset) with no Reviewer, a call
// that a person must review pauses the run with Eino's interrupt for tools: the interrupt
// carries a [ReviewRequest] (what the person sees) and, as the tool's interrupt state, the
// saved review. Resuming that interrupt with a [Decision] restores the review, applies the
// person's decision and gives the model the result.
package einotool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/applypatch/applypatch"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
)

// Tool is apply_patch as an Eino [tool.InvokableTool] over an [applypatch.Tool].
type Tool struct {
	// Patch applies the calls: its filesystem, workspace, mode, Authorizer and Reviewer.
	// With a Reviewer set, ask mode reviews in the call itself and never interrupts.
	Patch *applypatch.Tool
	// Card configures the review card an interrupt carries.
	Card applypatch.CardOptions
	// Save configures the saved review kept in the interrupt state; with
	// BaselinesByHash the checkpoint holds no file content.
	Save applypatch.SaveOptions
	// Log, when set, receives one transcript line per settled call.
	Log io.Writer
}

var _ tool.InvokableTool = (*Tool)(nil)

// New returns the Eino tool over t.
func New(t *applypatch.Tool) *Tool { return &Tool{Patch: t} }

// Info describes the tool to the model: the name, description and JSON schema of
// [applypatch.Tool.Definition].
func (t *Tool) Info(ctx context.Context) (*schema.ToolInfo, error) {
	def := t.Patch.Definition()
	var params jsonschema.Schema
	if err := json.Unmarshal(def.Parameters, &params); err != nil {
		return nil, fmt.Errorf("apply_patch: reading the parameter schema: %w", err)
	}
	return &schema.ToolInfo{Name: def.Name, Desc: def.Description, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&params)}, nil
}

// InvokableRun applies one apply_patch call and returns the text the model reads. A call
// that fails (bad arguments, a refused path, a hunk that does not match) returns its
// "Error: ..." text with a nil error; only a cancelled context is an error. In ask mode
// without a Reviewer, a call that needs a review returns the interrupt of
// [tool.StatefulInterrupt]; resumed, it settles the review with the [Decision] it was
// resumed with.
func (t *Tool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	if wasInterrupted, hasState, st := tool.GetInterruptState[*PendingReview](ctx); wasInterrupted && hasState {
		return t.resume(ctx, st)
	}
	var paused *PendingReview
	var pauseErr error
	call := *t.Patch
	if mode := call.Options.Mode; (mode == "" || mode == applypatch.ModeAsk) && call.Reviewer == nil {
		call.Reviewer = applypatch.ReviewerFunc(func(_ context.Context, s *applypatch.Session) error {
			defer s.Abort() // the person answers on resume; this call writes nothing
			paused, pauseErr = t.pause(compose.GetToolCallID(ctx), s)
			return nil
		})
	}
	text, res, _ := call.Call(ctx, json.RawMessage(argumentsInJSON))
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("apply_patch: %w", err)
	}
	switch {
	case pauseErr != nil:
		return applypatch.ErrorResult(pauseErr).Text(), nil
	case paused != nil:
		return "", tool.StatefulInterrupt(ctx, paused.Request, paused)
	}
	t.log(res)
	return text, nil
}

// pause saves an open review and what the person is shown of it.
func (t *Tool) pause(callID string, s *applypatch.Session) (*PendingReview, error) {
	saved, err := s.Save(t.Save)
	if err != nil {
		return nil, fmt.Errorf("saving the review for the person: %w", err)
	}
	v := s.View()
	req := &ReviewRequest{CallID: callID, Header: v.Header, Review: s.Render(), Card: s.Card(t.Card)}
	for _, r := range v.Rows {
		req.Choices = append(req.Choices, Choice{Target: r.Target, Row: r.String()})
	}
	return &PendingReview{Saved: saved, Request: req}, nil
}

// resume settles a paused review: it re-interrupts while another interrupt is the one
// resumed, and otherwise restores the review and applies the person's decision.
func (t *Tool) resume(ctx context.Context, st *PendingReview) (string, error) {
	isTarget, hasData, d := resumeDecision(ctx)
	if !isTarget {
		return "", tool.StatefulInterrupt(ctx, st.Request, st)
	}
	if !hasData {
		return applypatch.ErrorResult(errNoDecision).Text(), nil
	}
	s, err := applypatch.RestoreSession(ctx, t.Patch.FS, st.Saved, &t.Patch.Options)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("apply_patch: %w", ctx.Err())
		}
		return applypatch.ErrorResult(fmt.Errorf("the paused review cannot continue: %w", err)).Text(), nil
	}
	res, _ := s.Run(ctx, applypatch.ReviewerFunc(d.settle))
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("apply_patch: %w", err)
	}
	t.log(res)
	return res.Text(), nil
}

// resumeDecision reports whether this call is the interrupt being resumed and the
// Decision it was resumed with, given as a Decision or a *Decision.
func resumeDecision(ctx context.Context) (isTarget, hasData bool, d Decision) {
	if isTarget, hasData, d = tool.GetResumeContext[Decision](ctx); !isTarget || hasData {
		return isTarget, hasData, d
	}
	if _, ok, p := tool.GetResumeContext[*Decision](ctx); ok && p != nil {
		return true, true, *p
	}
	return true, false, Decision{}
}

// errNoDecision is the result of a review resumed without a [Decision].
var errNoDecision = errors.New("the review was resumed without the person's decision, so nothing was written")

// log writes the transcript line of a settled call to t.Log.
func (t *Tool) log(res *applypatch.Result) {
	if t.Log != nil && res != nil {
		fmt.Fprintln(t.Log, res.Summary())
	}
}
