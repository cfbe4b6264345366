// Package adktool exposes applypatch's apply_patch tool to agents built on the Agent
// Development Kit for Go (google.golang.org/adk), as a function tool.
//
// In ModeEdits and ModeFullAuto a call is applied as the model sent it. In ModeAsk (the
// zero Mode) the first call writes nothing: it resolves the patch and asks the person
// through ADK's tool confirmation, with the review card ([Request]) as the payload. The
// person answers with a [Decision] in the confirmation's payload; ADK then runs the call
// again, and the decision is applied to exactly the files the person saw: a file changed
// meanwhile is refused.
package adktool

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
)

// Args are a call's arguments as the model sent them, {"patchText": "*** Begin Patch…"}.
// They reach the library as JSON, so that a wrong argument gets its message.
type Args = map[string]any

// Output is the function response the model reads.
type Output struct {
	// Status is the result's status ("applied", "revision", "error"), or "pending" while
	// the person reviews the patch.
	Status string `json:"status"`
	// Output is the text the model reads: the result's Text, which starts with
	// "Error: " when nothing was written because of an error.
	Output string `json:"output"`
}

// StatusPending is the Status of a call that waits for the person's confirmation.
const StatusPending = "pending"

// pendingText is what the model reads while the person reviews the patch.
const pendingText = "The patch is waiting for the user's review; nothing is written until they answer."

// errNoFS refuses a tool without a filesystem.
var errNoFS = errors.New("adktool: the applypatch.Tool has no FS; set one (for example afero.NewOsFs())")

// New returns the apply_patch function tool over t: its FS, Options and mode. The name,
// description and parameter schema are t.Definition()'s. t.Reviewer is not used: in
// ModeAsk the person answers through ADK's confirmation (see [Decision]). t must not be
// changed while the tool is in use.
func New(t *applypatch.Tool) (tool.Tool, error) {
	if t.FS == nil {
		return nil, errNoFS
	}
	def := t.Definition()
	var schema jsonschema.Schema
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		return nil, fmt.Errorf("adktool: reading the apply_patch schema: %w", err)
	}
	h := &handler{tool: t}
	ft, err := functiontool.New(functiontool.Config{
		Name:        def.Name,
		Description: def.Description,
		InputSchema: &schema,
	}, h.call)
	if err != nil {
		return nil, fmt.Errorf("adktool: building the function tool: %w", err)
	}
	return ft, nil
}

// handler answers the tool's calls.
type handler struct {
	tool *applypatch.Tool
}

// call handles one call: applied at once outside ModeAsk; in ModeAsk, asked about on the
// first run and decided on the run ADK makes with the person's confirmation. Failures are
// results the model reads, not errors, so the model can correct its patch.
func (h *handler) call(ctx agent.ToolContext, args Args) (Output, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return outputOf(applypatch.ErrorResult(fmt.Errorf("the arguments cannot be read: %w", err))), nil
	}
	if m := h.tool.Options.Mode; m != "" && m != applypatch.ModeAsk {
		_, res, _ := h.tool.Call(ctx, raw)
		return outputOf(res), nil
	}
	text, err := applypatch.ParseToolArgs(raw)
	if err != nil {
		return outputOf(applypatch.ErrorResult(err)), nil
	}
	if c := ctx.ToolConfirmation(); c != nil {
		return outputOf(h.decide(ctx, text, c.Confirmed, c.Payload)), nil
	}
	return h.ask(ctx, text), nil
}

// outputOf is the function response of a result.
func outputOf(res *applypatch.Result) Output {
	return Output{Status: string(res.Status), Output: res.Text()}
}
