package applypatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/afero"
)

// toolName is the name an agent host registers the tool under.
const toolName = "apply_patch"

// toolDescription teaches a model the payload format. It is the description of
// [Tool.Definition].
const toolDescription = `Create, edit, move and delete files with one patch. Send the whole patch as the string "patchText":

*** Begin Patch
*** Add File: docs/notes.md
+Every line of a new file starts with "+".
*** Update File: src/app.py
@@ def main():
     setup()
-    run_old()
+    run_new()
     teardown()
*** Update File: src/old_name.py
*** Move to: src/new_name.py
@@
-last line
+new last line
*** End of File
*** Delete File: build/stale.txt
*** End Patch

- Paths are relative to the workspace; one section per file.
- An Update is made of hunks. Each starts with "@@"; "@@ TEXT" names a line above the hunk (a function or class header) to tell identical places apart.
- Hunk lines start with " " (context), "-" (removed) or "+" (added). Copy context and removed lines exactly as the file has them, indentation and punctuation included, with about 3 lines of context around each change. No line numbers.
- "*** Move to: PATH" right after "*** Update File:" renames the file; its hunks are optional.
- "*** End of File" after a hunk's last line anchors the hunk to the end of the file.
- The patch applies completely or not at all. If it fails, re-read the files the error names and send a corrected patch.`

// toolSchema is the JSON schema of the tool's arguments: one required string
// property, "patchText". The handler also accepts "input" as an alias (the name Codex
// uses), but the schema advertises one name only.
const toolSchema = `{"type":"object",` +
	`"properties":{"patchText":{"type":"string","description":"The whole patch, from \"*** Begin Patch\" to \"*** End Patch\"."}},` +
	`"required":["patchText"],"additionalProperties":false}`

// A ToolDefinition is what a host registers with a model: name, description and either
// the JSON schema of the arguments (a function tool, [Tool.Definition]) or the grammar of
// the input (a freeform tool, [Tool.FreeformDefinition]).
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Grammar is, for the freeform tool, the Lark grammar its input follows.
	Grammar string `json:"grammar,omitempty"`
}

// errNoFS is the error of a call on a [Tool] without a filesystem.
var errNoFS = errors.New("the tool has no filesystem; the host must set Tool.FS (for example afero.NewOsFs())")

// A Tool is the apply_patch tool of an agent host: it validates a model's
// arguments and runs the pipeline (parse, resolve, review, commit) on FS with the host's
// Options. Its methods may be called concurrently; commits on one filesystem are
// serialised.
//
// Options.Mode chooses the approval mode: in [ModeEdits] and [ModeFullAuto] every call that
// resolves is committed without interactive review. In [ModeAsk] mode a call that needs a
// review (one that touches the workspace where the host's allow rules do not cover it)
// is settled by the Reviewer with [Review]; paths outside the workspace or
// protected were already put to the Authorizer while resolving. Without a Reviewer such
// a call fails with an error saying so and writes nothing.
type Tool struct {
	// FS is the filesystem the workspace lives in.
	FS afero.Fs
	// Options configure every call: workspace, mode, Authorizer, limits...
	Options Options
	// Reviewer settles calls in ModeAsk: a terminal, an editor, an elicitation form, a
	// review script. Unused in the other modes.
	Reviewer Reviewer
}

// Definition returns the tool definition to register with a model.
func (t *Tool) Definition() ToolDefinition {
	return ToolDefinition{Name: toolName, Description: toolDescription, Parameters: json.RawMessage(toolSchema)}
}

// Call handles one tool call: args are the call's JSON arguments. It returns the
// text the model sees, the structured result (render data for the host), and the error,
// if any, for the host's own logic; an error is also an error result, whose text starts
// with "Error: ". Nothing is written unless the whole patch applies.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (string, *Result, error) {
	res, err := t.call(ctx, func() (*Proposal, error) { return t.propose(ctx, args) })
	return res.Text(), res, err
}

// propose validates the arguments, parses the patch and resolves it on FS, writing
// nothing: the first half of Call. A host that shows the proposal to a person itself (or
// pauses for one) before it commits does the same with ParseToolArgs and ResolvePayload.
func (t *Tool) propose(ctx context.Context, args json.RawMessage) (*Proposal, error) {
	if err := t.checkArgsSize(args); err != nil {
		return nil, err
	}
	text, err := ParseToolArgs(args)
	if err != nil {
		return nil, err
	}
	if t.FS == nil {
		return nil, errNoFS
	}
	return ResolvePayload(ctx, t.FS, text, &t.Options)
}

// proposePatch resolves an already parsed patch on FS.
func (t *Tool) proposePatch(ctx context.Context, p *Patch) (*Proposal, error) {
	if t.FS == nil {
		return nil, errNoFS
	}
	return Resolve(ctx, t.FS, p, &t.Options)
}

// call resolves a proposal and settles it as the tool's mode says: reviewed, or
// committed as it is.
func (t *Tool) call(ctx context.Context, propose func() (*Proposal, error)) (*Result, error) {
	if t.Options.Mode.orAsk() != ModeAsk && t.FS != nil {
		// No person reviews: read the baselines under the commit's lock, as Apply does,
		// so concurrent compatible calls all land instead of conflicting.
		return applyUnderLock(ctx, t.FS, &t.Options, propose)
	}
	pr, err := propose()
	if err != nil {
		return errorResult(err), err
	}
	switch {
	case !pr.needsReview():
		return Commit(ctx, pr)
	case t.Reviewer == nil:
		return errorResult(errNoReviewer), errNoReviewer
	}
	return Review(ctx, pr, t.Reviewer)
}

// checkArgsSize refuses, before decoding them, arguments larger than any payload within
// the payload limit can be once written as JSON (escaping at most doubles ordinary text),
// so an oversized call costs no decoding.
func (t *Tool) checkArgsSize(args []byte) error {
	limit := argsLimit(t.Options.Limits.withDefaults().Payload)
	if len(args) > limit {
		return overLimit("the tool-call arguments have %s bytes", len(args), limit, true)
	}
	return nil
}

// argsLimit is the largest tool-call argument text accepted for a payload limit.
func argsLimit(payload int) int { return 2*payload + 64<<10 }

// Tool argument names: patchText is the one the schema advertises; input is accepted
// as an alias, the name Codex gives the same argument.
const (
	argPatchText = "patchText"
	argInput     = "input"
)

// Messages of the argument checks, each saying what to send instead.
const (
	msgNotObject = `the arguments must be a JSON object with one string property, ` +
		`{"patchText": "*** Begin Patch\n...\n*** End Patch"}`
	msgUnknown = `%s: the only argument is "patchText", a string holding the whole patch; remove the others`
	msgBoth    = `both "patchText" and "input" were given; send the patch once, in "patchText"`
	msgTwice   = `%q is given twice; send it once`
	msgMissing = `"patchText" is missing; send the whole patch, from "*** Begin Patch" to "*** End Patch", ` +
		`as the string property "patchText"`
	msgNotString = `%q must be a string holding the whole patch, not %s`
	msgEmpty     = `%q is empty; send the whole patch, from "*** Begin Patch" to "*** End Patch"`
)

// ParseToolArgs validates the JSON arguments of an apply_patch tool call and returns the
// patch text. The arguments must be a JSON object with exactly one property,
// "patchText" (or its alias "input"), holding a non-blank string. Anything else is a
// [*ParseError] whose message tells the model what to send instead.
//
// With [ResolvePayload] it is the first half of [Tool.Call], for a host that shows the
// proposal to a person itself (or pauses for one) before it commits it:
//
//	text, err := applypatch.ParseToolArgs(args)
//	...
//	pr, err := applypatch.ResolvePayload(ctx, tool.FS, text, &tool.Options)
func ParseToolArgs(args json.RawMessage) (string, error) {
	props, err := objectProps(args)
	if err != nil {
		return "", err
	}
	var unknown []string
	for _, p := range props {
		if p.name != argPatchText && p.name != argInput {
			unknown = append(unknown, fmt.Sprintf("%q", p.name))
		}
	}
	if len(unknown) > 0 {
		what := "unknown argument "
		if len(unknown) > 1 {
			what = "unknown arguments "
		}
		return "", argumentError(fmt.Sprintf(msgUnknown, what+strings.Join(unknown, ", ")))
	}
	switch len(props) {
	case 0:
		return "", argumentError(msgMissing)
	case 1:
		return patchString(props[0])
	}
	if props[0].name == props[1].name {
		return "", argumentError(fmt.Sprintf(msgTwice, props[0].name))
	}
	return "", argumentError(msgBoth)
}

// prop is one property of a JSON object, in the order it was written.
type prop struct {
	name  string
	value json.RawMessage
}

// objectProps reads a JSON object's properties in order, keeping duplicates, so that no
// property is silently dropped or overridden.
func objectProps(args json.RawMessage) ([]prop, error) {
	notObject := argumentError(msgNotObject)
	dec := json.NewDecoder(bytes.NewReader(args))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notObject
	}
	var props []prop
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		var p prop
		p.name, _ = tok.(string)
		if err := dec.Decode(&p.value); err != nil {
			return nil, notObject
		}
		props = append(props, p)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, notObject
	}
	return props, nil
}

// patchString reads the patch text from the one valid property.
func patchString(p prop) (string, error) {
	var s string
	if p.value[0] != '"' || json.Unmarshal(p.value, &s) != nil { // Unmarshal takes null as ""
		return "", argumentError(fmt.Sprintf(msgNotString, p.name, jsonType(p.value)))
	}
	if strings.TrimSpace(s) == "" {
		return "", argumentError(fmt.Sprintf(msgEmpty, p.name))
	}
	return s, nil
}

// jsonType names the type of a JSON value for a message: "a number", "an object"…
func jsonType(v json.RawMessage) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
