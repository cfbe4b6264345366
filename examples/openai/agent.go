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
)

// maxTurns bounds the model round trips of one task.
const maxTurns = 20

// An Agent runs a task with a model through the OpenAI Responses API, offering it the
// apply_patch tool and applying every call through the library's Tool.
type Agent struct {
	// Client talks to the Responses API.
	Client openai.Client
	// Model names the model.
	Model string
	// Tool applies the patches: its workspace, mode, Authorizer and Reviewer.
	Tool *applypatch.Tool
	// Function offers apply_patch as a function tool built from Tool.Definition()
	// instead of the Responses API's built-in apply_patch tool.
	Function bool
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
		var outputs []responses.ResponseInputItemUnionParam
		for _, item := range resp.Output {
			if out, ok := a.answer(ctx, item); ok {
				outputs = append(outputs, out)
			}
		}
		if len(outputs) == 0 {
			return resp.OutputText(), nil
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: outputs}
	}
	return "", fmt.Errorf("the model was still calling tools after %d turns", maxTurns)
}

// tools is what the model is offered: the built-in apply_patch tool, or the function
// tool of Tool.Definition().
func (a *Agent) tools() ([]responses.ToolUnionParam, error) {
	if !a.Function {
		return []responses.ToolUnionParam{{OfApplyPatch: &responses.ApplyPatchToolParam{}}}, nil
	}
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

// answer applies one output item if it is an apply_patch call, and returns the item
// that carries the result back to the model.
func (a *Agent) answer(ctx context.Context, item responses.ResponseOutputItemUnion) (responses.ResponseInputItemUnionParam, bool) {
	switch item.Type {
	case "apply_patch_call":
		// The library reads the item as the API sent it: operation type, path and diff.
		out, res, _ := a.Tool.CallResponses(ctx, json.RawMessage(item.AsApplyPatchCall().RawJSON()))
		a.log(res)
		// The output item is JSON ready to send: pass it through as it is.
		return param.Override[responses.ResponseInputItemUnionParam](out), true
	case "function_call":
		call := item.AsFunctionCall()
		text := fmt.Sprintf("Error: there is no tool named %q; the only tool is %s", call.Name, a.Tool.Definition().Name)
		if call.Name == a.Tool.Definition().Name {
			var res *applypatch.Result
			text, res, _ = a.Tool.Call(ctx, json.RawMessage(call.Arguments))
			a.log(res)
		}
		reply := responses.ResponseInputItemParamOfFunctionCallOutput(text)
		reply.OfFunctionCallOutput.CallID = openai.String(call.CallID)
		return reply, true
	}
	return responses.ResponseInputItemUnionParam{}, false
}

func (a *Agent) log(res *applypatch.Result) {
	if a.Log != nil && res != nil {
		fmt.Fprintln(a.Log, res.Summary())
	}
}
