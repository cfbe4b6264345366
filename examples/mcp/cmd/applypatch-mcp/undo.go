package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// undoName is the name of the tool that reverts the changes the server applied.
const undoName = "undo_patch"

// undoDescription tells the model what undo_patch does, and what it never does.
const undoDescription = "Undo the newest change applied through this server that is not undone yet " +
	"(the workspace's history, which the applypatch command run in the same directory shares): " +
	"every file it touched is put back, file by file, as one transaction. " +
	"Edits made since are never overwritten: a file that still holds what the change wrote gets its old bytes back, " +
	"and a file edited since elsewhere keeps those edits. A file edited in the lines the change wrote, " +
	"or deleted or created since, refuses the whole undo: nothing is written, and the error names the file. " +
	"Each call undoes one change; call again to undo the one before. " +
	"With redo set to true it re-applies the change the last undo reverted, by the same rules. " +
	"The result says which change was reverted and which files it touched."

// undoSchema is undo_patch's input: no argument, or redo.
const undoSchema = `{"type":"object","properties":{` +
	`"redo":{"type":"boolean","description":"true re-applies the change the last undo reverted, instead of undoing one; default false"}},` +
	`"additionalProperties":false}`

// undoTool is undo_patch's definition.
func undoTool() *mcp.Tool {
	return &mcp.Tool{
		Name:        undoName,
		Title:       "Undo patch",
		Description: undoDescription,
		InputSchema: json.RawMessage(undoSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Undo patch", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}
}

// undoForm asks about an undo or a redo.
var undoForm = form{
	tool:    undoName,
	choices: "apply: revert the change as shown. reject: keep the files as they are; nothing is written. feedback: write nothing and send the comment to the agent.",
	marker:  "[truncated: the rest of the change does not fit in this message]",
	empty:   errEmptyUndoFeedback,
}

// errEmptyUndoFeedback explains a feedback decision on an undo that carries no comment.
var errEmptyUndoFeedback = errors.New("the user chose to send feedback but left the comment empty, " +
	"so nothing was written and the change is not reverted; ask the user what they want, " +
	"then call " + undoName + " again if they still want it")

// errUndoArgs refuses arguments undo_patch does not take.
var errUndoArgs = errors.New(`invalid arguments: ` + undoName + ` takes one optional argument, "redo", ` +
	`true or false: send {} to undo the newest change, {"redo": true} to re-apply the one the last undo reverted`)

// errStaleUndo refuses an answer that does not belong to the undo being applied.
var errStaleUndo = errors.New("the review answer does not belong to this undo (the history or the files changed since the user was asked); " +
	"nothing was written: call " + undoName + " again to review it")

// undoArgs are undo_patch's arguments.
type undoArgs struct {
	Redo bool `json:"redo"`
}

// readUndoArgs reads undo_patch's arguments: none (or null) undoes.
func readUndoArgs(raw json.RawMessage) (undoArgs, error) {
	var args undoArgs
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&args) != nil || dec.More() {
		return args, errUndoArgs
	}
	return args, nil
}

// undoPatch handles one tools/call of undo_patch: it reverts the newest change of the
// history that is not undone, or with redo applies again the one undone last, as apply
// would: committed at once without review, or shown to the person first in ask mode.
// Nothing to undo, and an undo refused, are error results saying why.
func (s *server) undoPatch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, cancel := s.haltable(ctx)
	defer cancel()
	args, err := readUndoArgs(req.Params.Arguments)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	mode, ok := s.mode(req)
	if !ok {
		return toolResult(applypatch.ErrorResult(errCannotAsk)), nil
	}
	opts, done, err := s.options(mode)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	defer done()
	if mode == applypatch.ModeAsk {
		return s.reviewUndo(ctx, req, args.Redo, opts), nil
	}
	// Committed at once: the history and the files are read under the commit's lock, so
	// a call that commits meanwhile is waited for, not conflicted with.
	t := &applypatch.Tool{FS: s.cfg.FS, Options: opts}
	run := t.Undo
	if args.Redo {
		run = t.Redo
	}
	res, _ := run(ctx) // an error's result says it
	return toolResult(res), nil
}

// revert builds the proposal of an undo, or of a redo, on the server's filesystem.
func (s *server) revert(ctx context.Context, redo bool, opts *applypatch.Options) (*applypatch.Proposal, error) {
	if redo {
		return applypatch.Redo(ctx, s.cfg.FS, opts)
	}
	return applypatch.Undo(ctx, s.cfg.FS, opts)
}

// reviewUndo runs an ask-mode undo_patch as review runs apply_patch: the first invocation
// builds the undo and asks the person, sealing the change it names and the baselines the
// person saw; the answer builds the undo again, expecting the files to be exactly what the
// person saw and the change to be the same, and settles it as the person answered.
func (s *server) reviewUndo(ctx context.Context, req *mcp.CallToolRequest, redo bool, opts applypatch.Options) *mcp.CallToolResult {
	answer, state, early := answerOf(ctx, req, undoForm, func() (*mcp.CallToolResult, error) { return s.askUndo(ctx, redo, opts) })
	if early != nil {
		return early
	}
	d, err := readDecision(answer, undoForm)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err))
	}
	st, err := s.unseal(state)
	if err != nil {
		return toolResult(applypatch.ErrorResult(errStaleUndo))
	}
	// The change to revert must still be the one the person was asked about, whatever
	// the files hold: checked first, so that another change's undo is never refused for
	// the files of the one asked about.
	if pr, err := s.revert(ctx, redo, &opts); err == nil && !st.about(reverted(pr)) {
		return toolResult(applypatch.ErrorResult(errStaleUndo))
	}
	opts.Expected = st.Expected
	pr, err := s.revert(ctx, redo, &opts)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err))
	}
	if !st.about(reverted(pr)) {
		return toolResult(applypatch.ErrorResult(errStaleUndo))
	}
	res, err := applypatch.Review(ctx, pr, answerReviewer(d))
	if res == nil {
		res = applypatch.ErrorResult(err)
	}
	return toolResult(res)
}

// askUndo builds the undo (or redo) and returns the question for the person, with the
// change it reverts and the baselines it showed them as signed request state.
func (s *server) askUndo(ctx context.Context, redo bool, opts applypatch.Options) (*mcp.CallToolResult, error) {
	pr, err := s.revert(ctx, redo, &opts)
	if err != nil {
		return nil, err
	}
	what := reverted(pr) // "undo the change …"
	intro, about := "The agent wants to undo this change", "It reverts "
	if redo {
		intro, about = "The agent wants to redo this change", "It applies again "
	}
	_, change, _ := strings.Cut(what, " ")
	message := undoForm.message(intro, about+change+".", applypatch.NewSession(pr))
	return undoForm.question(message, s.seal(what, pr.Snapshots())), nil // snapshots by authored path (F5)
}

// reverted names what an undo's or a redo's proposal does, as its preview says: "undo the
// change 0123456789ab of 2026-01-02 15:04:05 (main.go)".
func reverted(pr *applypatch.Proposal) string {
	notes := pr.Preview().Notes
	if len(notes) == 0 {
		return ""
	}
	what := strings.TrimPrefix(notes[len(notes)-1], "Would ")
	return strings.TrimSuffix(what, "; nothing was written.")
}
