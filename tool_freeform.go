package applypatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// toolGrammar is the Lark grammar of the freeform tool's input: the payload as [Parse]
// reads it when nothing wraps the envelope. It admits what Parse admits there (blank
// lines between sections, an Environment ID line, stacked "@@" lines, line hints,
// unified-diff hunk headers, bare empty context lines, "*** End of File" before a new
// "@@" hunk, CRLF, white space around markers, a section header indented except right
// after an Update, whose body reads an indented line as context), so a model constrained
// by it is never kept from writing a patch Parse would take; what it cannot say (paths
// used twice, a hunk without lines) Parse refuses with a message. Its terminals never
// share a pattern, which grammar-constrained decoders require.
const toolGrammar = `start: blank* begin_patch blank* environment_id? sections end_patch
begin_patch: WS? "*** Begin Patch" WS? EOL
environment_id: "*** Environment ID:" TEXT? EOL blank*
end_patch: WS? "*** End Patch" WS? (EOL blank*)?
sections: padded+ | padded* WS? update_file update_file* (other padded* WS? update_file update_file*)* (other padded*)?
padded: WS? other
other: add_file | delete_file blank*
add_file: "*** Add File: " path EOL add_line*
add_line: "+" TEXT? EOL
delete_file: "*** Delete File: " path EOL
update_file: "*** Update File: " path EOL move? (end_of_file | EOL)* change?
move: "*** Move to: " path EOL
change: (first_lines | chunk) chunk*
first_lines: EOL* edit_line change_line* (end_of_file blank*)?
chunk: context+ lines
context: "@@" (" " TEXT?)? EOL
lines: change_line+ (end_of_file blank*)?
change_line: edit_line | EOL
edit_line: ("+" | "-" | " ") TEXT? EOL
end_of_file: "*** End of File" WS? EOL
blank: WS? EOL
path: TEXT
TEXT: /[^\r\n]+/
WS: /[ \t]+/
EOL: /\r?\n/
`

// toolFreeformDescription teaches a model the payload format for the freeform tool.
var toolFreeformDescription = strings.Replace(toolDescription,
	`Send the whole patch as the string "patchText":`,
	"This is a FREEFORM tool: send the patch itself as the input, not JSON and not wrapped in quotes or code fences:", 1)

// FreeformDefinition returns the tool as a freeform (custom) tool: the same name, a
// description that asks for the bare patch, and, in Grammar, the Lark grammar that
// constrains the model's input to what [Parse] accepts. A host registers it where the
// model API offers grammar-constrained custom tools (the OpenAI Responses API's
// {"type": "custom", "format": {"type": "grammar", "syntax": "lark", ...}}) and answers
// the model's custom_tool_call items with [Tool.CallResponses].
func (t *Tool) FreeformDefinition() ToolDefinition {
	return ToolDefinition{Name: toolName, Description: toolFreeformDescription, Grammar: toolGrammar}
}

// A customCall is the custom_tool_call item of the OpenAI Responses API: the freeform
// tool's input is the payload itself.
type customCall struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Input  string `json:"input"`
}

// customOutput is the custom_tool_call_output item a host sends back.
type customOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// itemType reads the type of a Responses API item.
func itemType(item json.RawMessage) string {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(item, &head) != nil {
		return ""
	}
	return head.Type
}

// callCustom handles a custom_tool_call item: its input is a whole payload.
func (t *Tool) callCustom(ctx context.Context, item json.RawMessage) (*customOutput, *Result, error) {
	var call customCall
	err := json.Unmarshal(item, &call)
	if err == nil && call.Name != "" && call.Name != toolName {
		err = fmt.Errorf("the call is for the tool %q", call.Name)
	}
	var res *Result
	if err != nil {
		err = argumentError("not a custom_tool_call of " + toolName + ": " + err.Error() +
			`; send {"type": "custom_tool_call", "call_id": ..., "name": "apply_patch", "input": PATCH}`)
		res = errorResult(err)
	} else {
		res, err = t.call(ctx, func() (*Proposal, error) {
			if t.FS == nil {
				return nil, errNoFS
			}
			return ResolvePayload(ctx, t.FS, call.Input, &t.Options)
		})
	}
	return &customOutput{Type: "custom_tool_call_output", CallID: call.CallID, Output: res.Text()}, res, err
}
