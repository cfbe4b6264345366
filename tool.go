package applypatch

import (
	"context"
	"encoding/json"
	"errors"

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

// A ToolDefinition is what a host registers with a model: name, description and the JSON
// schema of the arguments.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
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
