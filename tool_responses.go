package applypatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/envelope"
)

// Operation types of the OpenAI Responses API's apply_patch tool.
const (
	opCreateFile = "create_file"
	opUpdateFile = "update_file"
	opDeleteFile = "delete_file"
)

// opHeaders maps an operation type to the section header it becomes.
var opHeaders = map[string]string{opCreateFile: headerAdd, opUpdateFile: headerUpdate, opDeleteFile: headerDelete}

// parseOperation builds a one-operation [*Patch] from the operation of an OpenAI Responses
// API apply_patch call: kind is "create_file", "update_file" or "delete_file", path the
// file, and diff the envelope-less body: the "+" lines of the new file for create_file, the
// hunks ("@@" optional before the first) for update_file, nothing for delete_file.
//
// The diff is read by [Parse] itself, so both shapes accept and reject exactly the same
// lines. Line numbers, in the Patch and in errors, count lines of diff: a hunk's Line is
// where it starts in diff, the operation's Line is 0, and a [*ParseError] has Line 0 when
// it concerns the operation as a whole.
func parseOperation(kind, path, diff string) (*Patch, error) {
	header, ok := opHeaders[kind]
	if !ok {
		return nil, &ParseError{Msg: fmt.Sprintf(
			"unknown operation type %q; use %q, %q or %q", kind, opCreateFile, opUpdateFile, opDeleteFile)}
	}
	path = strings.TrimSpace(path)
	diff = strings.TrimSuffix(strings.TrimSuffix(diff, "\n"), "\r")
	if err := checkOperation(kind, path, diff); err != nil {
		return nil, err
	}
	payload := envelope.Begin + "\n" + header + path + "\n"
	if diff != "" {
		payload += diff + "\n"
	}
	p, err := Parse(payload + envelope.End)
	if err != nil {
		return nil, diffError(err, strings.Count(diff, "\n")+1)
	}
	op := &p.Ops[0]
	op.Line = 0 // the header is not in the diff
	for i := range op.Hunks {
		op.Hunks[i].Line -= envelopeLines
	}
	return p, nil
}

// envelopeLines is how many lines of the synthetic payload precede the diff.
const envelopeLines = 2

// diffError maps a parse error of the synthetic payload back to a line of the diff.
func diffError(err error, diffLines int) error {
	pe, ok := err.(*ParseError)
	if !ok {
		return err
	}
	mapped := *pe
	mapped.Line -= envelopeLines
	if mapped.Line < 1 || mapped.Line > diffLines {
		mapped.Line, mapped.Text = 0, ""
	}
	return &mapped
}

// checkOperation rejects what the synthetic envelope must not carry: a path on more than
// one line, a diff for a delete, an update without hunks, and lines the parser would read
// as a header of its own, which would smuggle in a second operation.
func checkOperation(kind, path, diff string) error {
	switch {
	case path == "":
		return &ParseError{Msg: "the operation names no path; give the file's path, relative to the workspace"}
	case strings.ContainsAny(path, "\r\n"):
		return &ParseError{Msg: "the path spans more than one line; give one file's path"}
	case pathProblem(path) != "":
		return &ParseError{Msg: pathProblem(path)}
	case kind == opDeleteFile && strings.TrimSpace(diff) != "":
		return &ParseError{Msg: "a delete_file operation has no diff; send it with an empty diff"}
	case kind == opUpdateFile && strings.TrimSpace(diff) == "":
		return &ParseError{Msg: "the update_file diff is empty; send '@@' hunks with ' ' context, '-' removed and '+' added lines"}
	}
	for i, l := range strings.Split(diff, "\n") {
		l = strings.TrimRight(l, "\r")
		if isSmuggledHeader(kind, l) {
			return &ParseError{Line: i + 1, Text: l, Msg: "the diff holds only the file's own lines, " +
				"not patch headers; send one operation per file, with its path in \"path\""}
		}
	}
	return nil
}

// isSmuggledHeader reports whether the parser would read a diff line as a marker that
// opens or ends a section. In an Add, a line that trims to "*** …" is one; in an Update, a
// line starting with "*** ", except "*** End of File".
func isSmuggledHeader(kind, l string) bool {
	if kind == opCreateFile {
		return strings.HasPrefix(strings.TrimSpace(l), "***")
	}
	return strings.HasPrefix(l, "*** ") && strings.TrimRight(l, " \t") != markerEOF
}

// A responsesCall is the apply_patch_call item of the OpenAI Responses API.
type responsesCall struct {
	Type      string             `json:"type"`
	ID        string             `json:"id,omitempty"`
	CallID    string             `json:"call_id"`
	Status    string             `json:"status,omitempty"`
	Operation responsesOperation `json:"operation"`
	// Caller says who made the call (the model directly, or a program it runs); it is
	// echoed on the output.
	Caller json.RawMessage `json:"caller,omitempty"`
}

// A responsesOperation is the operation of a ResponsesCall: create_file, update_file or
// delete_file, the file's path, and the envelope-less diff (empty for delete_file).
type responsesOperation struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Diff string `json:"diff,omitempty"`
}

// Patch parses the operation with ParseOperation.
func (op responsesOperation) patch() (*Patch, error) {
	return parseOperation(op.Type, op.Path, op.Diff)
}

// responsesOutput is the apply_patch_call_output item a host sends back.
type responsesOutput struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Status string          `json:"status"`
	Output string          `json:"output"`
	Caller json.RawMessage `json:"caller,omitempty"`
}

// Statuses of a responsesOutput.
const (
	responsesCompleted = "completed"
	responsesFailed    = "failed"
)

// CallResponses handles one tool call item of the OpenAI Responses API: an
// apply_patch_call of the built-in tool, or a custom_tool_call of the freeform tool
// ([Tool.FreeformDefinition]). It parses the call, runs the same pipeline as [Tool.Call],
// and returns the output item to send back as the next request's input, the structured
// result and the error, if any. For an apply_patch_call the item is JSON:
//
//	{"type": "apply_patch_call_output", "call_id": ..., "status": ..., "output": ...}
//
// with the call's call_id; status is "completed" when the call applied or asked for a
// revision and "failed" when it wrote nothing because of an error; output is the text the
// model reads ([Result.Text]). For a custom_tool_call it is
//
//	{"type": "custom_tool_call_output", "call_id": ..., "output": ...}
//
// whose output says the same, an error's text starting with "Error: ".
//
// A create_file's diff is the new file's lines, and each ends with a newline in the file
// written, the last included, as an Add of a payload does: a text file ends with one.
// (The Agents SDKs' reference helper writes none after the last line; the operation has
// no way to ask for a file without one.)
// Calls of one response that must apply together go to [Tool.Respond] instead.
func (t *Tool) CallResponses(ctx context.Context, item json.RawMessage) (json.RawMessage, *Result, error) {
	outs, res, err := t.Respond(ctx, []json.RawMessage{item})
	return outs[0], res, err
}

// Hints that end a refusal of a call item that is not what it must be.
const (
	applyPatchCallHint = `; send {"type": "apply_patch_call", "call_id": ..., "operation": {"type": ..., "path": ..., "diff": ...}}`
	customCallHint     = `; send {"type": "custom_tool_call", "call_id": ..., "name": "apply_patch", "input": PATCH}`
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
change: (first_lines | file_header? chunk) chunk*
file_header: "--- " TEXT EOL "+++ " TEXT EOL
first_lines: EOL* edit_line change_line* (end_of_file blank*)?
chunk: context+ lines
context: "@@" (" " TEXT?)? EOL
lines: change_line+ (end_of_file blank*)?
change_line: edit_line | EOL | "\\" TEXT? EOL
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
