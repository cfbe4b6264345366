package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/applypatch/applypatch"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// maxTurns bounds the model round trips of one task.
const maxTurns = 20

// Offer is a form in which the agent offers apply_patch to the model.
type Offer int

const (
	// OfferFreeform offers the freeform (custom) tool of Tool.FreeformDefinition(): the
	// model writes the patch itself, constrained by a Lark grammar, as Codex asks GPT-5
	// models to.
	OfferFreeform Offer = iota
	// OfferBuiltin offers the Responses API's built-in apply_patch tool, one file per call.
	OfferBuiltin
	// OfferFunction offers a function tool built from Tool.Definition(): the patch is the
	// "patchText" argument.
	OfferFunction
)

// An Agent runs a task with a model through the OpenAI Responses API, offering it the
// apply_patch tool and applying every call through the library's Tool.
type Agent struct {
	// Client talks to the Responses API.
	Client openai.Client
	// Model names the model.
	Model string
	// Tool applies the patches: its workspace, mode, Authorizer and Reviewer.
	Tool *applypatch.Tool
	// Offer is how apply_patch is offered to the model; the zero value offers the
	// freeform tool.
	Offer Offer
	// Log, when set, receives one line per applied call: its transcript summary.
	Log io.Writer
}

// Run sends the task and answers every tool call until the model replies without one,
// and returns the model's last text.
func (a *Agent) Run(ctx context.Context, task string) (string, error) {
	tools, err := a.tools()
	if err != nil {
		return "", err
	}
	params := responses.ResponseNewParams{
		Model: a.Model,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(task)},
		Tools: tools,
	}
	for range maxTurns {
		resp, err := a.Client.Responses.New(ctx, params)
		if err != nil {
			return "", err
		}
		outputs := a.answer(ctx, resp.Output)
		if len(outputs) == 0 {
			return resp.OutputText(), nil
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: outputs}
	}
	return "", fmt.Errorf("the model was still calling tools after %d turns", maxTurns)
}

// tools is what the model is offered: the freeform tool, the built-in apply_patch tool,
// or the function tool of Tool.Definition().
func (a *Agent) tools() ([]responses.ToolUnionParam, error) {
	switch a.Offer {
	case OfferBuiltin:
		return []responses.ToolUnionParam{{OfApplyPatch: &responses.ApplyPatchToolParam{}}}, nil
	case OfferFunction:
		def := a.Tool.Definition()
		var schema map[string]any
		if err := json.Unmarshal(def.Parameters, &schema); err != nil {
			return nil, err
		}
		return []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
			Name:        def.Name,
			Description: openai.String(def.Description),
			Parameters:  schema,
			Strict:      openai.Bool(false), // the schema accepts "input" as an alias, which strict mode cannot say
		}}}, nil
	}
	def := a.Tool.FreeformDefinition()
	return []responses.ToolUnionParam{{OfCustom: &responses.CustomToolParam{
		Name:        def.Name,
		Description: openai.String(def.Description),
		Format: shared.CustomToolInputFormatUnionParam{OfGrammar: &shared.CustomToolInputFormatGrammarParam{
			Syntax: "lark", Definition: def.Grammar}},
	}}}, nil
}

// answer answers the tool calls of one response. Its patch calls (apply_patch_call and
// custom_tool_call items) apply together as one change through Tool.Respond: all of
// them or none. A function call is answered on its own.
func (a *Agent) answer(ctx context.Context, items []responses.ResponseOutputItemUnion) []responses.ResponseInputItemUnionParam {
	var outputs []responses.ResponseInputItemUnionParam
	var calls []json.RawMessage
	for _, item := range items {
		switch item.Type {
		case "apply_patch_call", "custom_tool_call":
			// The library reads the item as the API sent it.
			calls = append(calls, json.RawMessage(item.RawJSON()))
		case "function_call":
			outputs = append(outputs, a.function(ctx, item.AsFunctionCall()))
		}
	}
	if len(calls) > 0 {
		outs, res, _ := a.Tool.Respond(ctx, calls)
		a.log(res)
		for _, out := range outs {
			// Each output item is JSON ready to send: pass it through as it is.
			outputs = append(outputs, param.Override[responses.ResponseInputItemUnionParam](out))
		}
	}
	return outputs
}

// function answers a function call of the apply_patch function tool.
func (a *Agent) function(ctx context.Context, call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
	text := fmt.Sprintf("Error: there is no tool named %q; the only tool is %s", call.Name, a.Tool.Definition().Name)
	if call.Name == a.Tool.Definition().Name {
		var res *applypatch.Result
		text, res, _ = a.Tool.Call(ctx, json.RawMessage(call.Arguments))
		a.log(res)
	}
	reply := responses.ResponseInputItemParamOfFunctionCallOutput(text)
	reply.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	return reply
}

func (a *Agent) log(res *applypatch.Result) {
	if a.Log != nil && res != nil {
		fmt.Fprintln(a.Log, res.Summary())
	}
}
