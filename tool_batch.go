package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/show"
)

// A batchCall is one tool call of a model response, parsed: its output item so far and
// the operations it contributes to the response's one patch.
type batchCall struct {
	out   any // *responsesOutput or *customOutput
	ops   []Operation
	err   error // the call's own refusal, before anything is resolved
	paths []string
}

// Respond answers every tool call of one model response as one change: the apply_patch_call
// items of the built-in tool (one file each) and the custom_tool_call items of the freeform
// tool become one patch, one review and one transaction, so a response that edits three
// files writes all three or none. It returns one output item per call, in order (the
// items [Tool.CallResponses] returns), the one result, and the error, if any.
//
// When the change fails, the call that caused it gets the error's text and status
// "failed"; every other call is told, also with "failed", that it was not applied because
// of that call, so the model resends the whole response fixed. A call that names a file
// a call before it names (but for a Delete then an Add, which rewrite it), or repeats its
// call_id, is the call that fails. An apply_patch_call's
// "caller" is echoed on its output, as the API asks.
func (t *Tool) Respond(ctx context.Context, items []json.RawMessage) ([]json.RawMessage, *Result, error) {
	calls := make([]*batchCall, len(items))
	for i, item := range items {
		calls[i] = t.batchCall(item)
	}
	res, err := t.respond(ctx, calls)
	outs := make([]json.RawMessage, len(calls))
	for i, c := range calls {
		c.settle(res, calls, err, i)
		outs[i], _ = json.Marshal(c.out) // structs of strings always encode
	}
	return outs, res, err
}

// batchCall parses one item: its output item is made now, with the call's id and caller.
func (t *Tool) batchCall(item json.RawMessage) *batchCall {
	if err := t.checkArgsSize(item); err != nil {
		return &batchCall{out: &responsesOutput{Type: "apply_patch_call_output"}, err: err}
	}
	if itemType(item) == "custom_tool_call" {
		var call customCall
		c := &batchCall{}
		err := json.Unmarshal(item, &call)
		c.out = &customOutput{Type: "custom_tool_call_output", CallID: call.CallID}
		if err == nil && call.Name != "" && call.Name != toolName {
			err = fmt.Errorf("the call is for the tool %q", call.Name)
		}
		switch {
		case err != nil:
			c.err = argumentError("not a custom_tool_call of " + toolName + ": " + err.Error() + customCallHint)
		default:
			c.ops, c.err = t.batchPayload(call.Input)
		}
		return c.named()
	}
	var call responsesCall
	err := json.Unmarshal(item, &call)
	if err == nil && call.Type != "" && call.Type != "apply_patch_call" {
		err = fmt.Errorf("the item has type %q", call.Type)
	}
	c := &batchCall{out: &responsesOutput{Type: "apply_patch_call_output", CallID: call.CallID, Caller: call.Caller}}
	switch {
	case err != nil:
		c.err = argumentError("not an apply_patch_call item: " + err.Error() + applyPatchCallHint)
	case len(call.Operation.Diff) > t.Options.Limits.withDefaults().Payload:
		c.err = overLimit("the diff has %s bytes", len(call.Operation.Diff), t.Options.Limits.withDefaults().Payload, false)
	default:
		var p *Patch
		if p, c.err = call.Operation.patch(); c.err == nil {
			c.ops = p.Ops
		}
	}
	return c.named()
}

// batchPayload parses a freeform call's payload.
func (t *Tool) batchPayload(payload string) ([]Operation, error) {
	if limit := t.Options.Limits.withDefaults().Payload; len(payload) > limit {
		return nil, overLimit("the payload has %s bytes", len(payload), limit, false)
	}
	p, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	return p.Ops, nil
}

// named records the paths the call's operations name, by which a failure is traced back
// to the call.
func (c *batchCall) named() *batchCall {
	for _, op := range c.ops {
		c.paths = append(c.paths, op.Path)
		if op.MoveTo != "" {
			c.paths = append(c.paths, op.MoveTo)
		}
	}
	return c
}

// claimPaths refuses, as its own error, each call that repeats the call_id of a call
// before it, or names a path a call before it names (a Delete then an Add of one path
// aside, which rewrite it): the response's one patch would refuse the second naming
// without saying which call made it.
func claimPaths(calls []*batchCall) {
	claims, ids := pathClaims{}, map[string]int{}
	for i, c := range calls {
		if c.err != nil {
			continue
		}
		if id := callID(c.out); id != "" {
			if prev, dup := ids[id]; dup {
				c.err = argumentError(fmt.Sprintf("the call_id %q is the id of call #%d of this response too; "+
					"each call of a response has its own id", id, prev+1))
				continue
			}
			ids[id] = i
		}
		for _, op := range c.ops {
			for k, name := range []string{op.Path, op.MoveTo} {
				if name == "" {
					continue
				}
				if prev, _, ok := claims.claim(name, i, op.Kind, k == 1); !ok && prev != i {
					c.err = &ParseError{Msg: fmt.Sprintf("the path %s is already touched by %s of this response; "+
						"put all changes to one file in one call", show.Path(name), callName(calls[prev], prev))}
				}
			}
		}
	}
}

// callName names a call by its call_id, else by its place in the response.
func callName(c *batchCall, i int) string {
	if id := callID(c.out); id != "" {
		return "call " + id
	}
	return fmt.Sprintf("call #%d", i+1)
}

// respond runs the calls' operations as one patch, unless a call was refused already.
func (t *Tool) respond(ctx context.Context, calls []*batchCall) (*Result, error) {
	claimPaths(calls)
	var errs []error
	var ops []Operation
	for _, c := range calls {
		if c.err != nil {
			errs = append(errs, c.err)
		}
		ops = append(ops, c.ops...)
	}
	switch {
	case len(calls) == 0:
		err := argumentError("the response has no tool calls to answer")
		return errorResult(err), err
	case len(errs) == 1:
		return errorResult(errs[0]), errs[0]
	case len(errs) > 1:
		err := &patchError{errs: errs}
		return errorResult(err), err
	}
	return t.call(ctx, func() (*Proposal, error) { return t.proposePatch(ctx, &Patch{Ops: ops}) })
}

// settle writes the call's output once the change is settled: the result's text for every
// call when it applied (or was sent back for revision), the error for a call the failure
// names, and for the others a sentence naming the calls that failed.
func (c *batchCall) settle(res *Result, calls []*batchCall, err error, i int) {
	text, status := res.Text(), responsesCompleted
	if res.Status == StatusError {
		status = responsesFailed
		if culprits := failedCalls(calls, err); len(culprits) > 0 && !culprits[i] {
			text = "Error: not applied: the calls of one response apply together or not at all, and " +
				callList(calls, culprits) + "; fix it and send every call of the response again."
		}
	}
	switch out := c.out.(type) {
	case *responsesOutput:
		out.Status, out.Output = status, text
	case *customOutput:
		out.Output = text
	}
}

// failedCalls finds the calls a failure names: those refused on their own, else those
// whose paths the error names. It is empty when the error names no call (a lock, a
// reviewer's refusal), and then every call gets the error's text.
func failedCalls(calls []*batchCall, err error) map[int]bool {
	out := map[int]bool{}
	for i, c := range calls {
		if c.err != nil {
			out[i] = true
		}
	}
	if len(out) > 0 || err == nil {
		return out
	}
	named := errorPaths(err)
	for i, c := range calls {
		for _, p := range c.paths {
			if named[p] {
				out[i] = true
			}
		}
	}
	return out
}

// errorPaths collects the authored paths an error tree names.
func errorPaths(err error) map[string]bool {
	out := map[string]bool{}
	var walk func(error)
	walk = func(err error) {
		var fe *FileError
		var me *MatchError
		var ce *ConflictError
		switch {
		case errors.As(err, &ce):
			for _, p := range ce.Paths {
				out[p] = true
			}
		case errors.As(err, &fe):
			out[fe.Path] = true
		case errors.As(err, &me):
			out[me.Path] = true
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

// callList names the failed calls for the others: "call call_2 (a.txt) failed".
func callList(calls []*batchCall, failed map[int]bool) string {
	var names []string
	for i, c := range calls {
		if !failed[i] {
			continue
		}
		name := callName(c, i)
		if len(c.paths) > 0 {
			name += " (" + strings.Join(show.Paths(c.paths), ", ") + ")"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ") + " failed"
}

// callID is the call_id an output item answers.
func callID(out any) string {
	switch out := out.(type) {
	case *responsesOutput:
		return out.CallID
	case *customOutput:
		return out.CallID
	}
	return ""
}
