package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// ToolName is the name the API gives the text editor tool text_editor_20250728; the
// model calls it by this name in its tool_use blocks.
const ToolName = "str_replace_based_edit_tool"

// description is the BetaTool's description. The API does not send it: the text editor
// is an Anthropic-defined tool whose description and schema are built into the model.
const description = "Claude's text editor (text_editor_20250728): view, create, str_replace and insert, " +
	"fenced to the workspace and written through applypatch."

// inputSchema describes the tool's input as the API defines it. Like description it is
// not sent; the toolrunner package asks for one.
var inputSchema = anthropic.BetaToolInputSchemaParam{
	Properties: map[string]any{
		"command":     map[string]any{"type": "string", "enum": []string{"view", "create", "str_replace", "insert"}},
		"path":        map[string]any{"type": "string"},
		"view_range":  map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
		"file_text":   map[string]any{"type": "string"},
		"old_str":     map[string]any{"type": "string"},
		"new_str":     map[string]any{"type": "string"},
		"insert_line": map[string]any{"type": "integer"},
		"insert_text": map[string]any{"type": "string"},
	},
	Required: []string{"command", "path"},
}

// A Command is the input of one text editor call, as the model sends it.
type Command struct {
	// Command is view, create, str_replace or insert.
	Command string `json:"command"`
	// Path is the file or directory, relative to the workspace or absolute.
	Path string `json:"path"`
	// ViewRange is, for view, the 1-based lines [start, end] to show; end -1 shows to the end.
	ViewRange []int `json:"view_range,omitempty"`
	// FileText is, for create, the new file's content.
	FileText *string `json:"file_text,omitempty"`
	// OldStr and NewStr are, for str_replace, the text to replace and its replacement
	// (absent NewStr deletes OldStr).
	OldStr *string `json:"old_str,omitempty"`
	NewStr *string `json:"new_str,omitempty"`
	// InsertLine and InsertText are, for insert, the line to insert after (0 is the top)
	// and the text. Earlier tool versions sent the text as new_str, which is read when
	// insert_text is absent.
	InsertLine *int    `json:"insert_line,omitempty"`
	InsertText *string `json:"insert_text,omitempty"`
}

// An Editor runs Claude's text editor tool on a workspace through applypatch: every path
// is fenced (credential locations refused, outside and protected paths only with the
// host's authority), every change resolved against the file as it is, reviewed in ask
// mode and written as one transaction that keeps the file's line endings, byte-order
// mark and indentation. Its methods may be called concurrently, as the tool runner does
// for the calls of one turn.
type Editor struct {
	// FS is the filesystem the workspace lives in.
	FS afero.Fs
	// Options configure every call: Workspace, WorkspaceFs, Mode, Authorizer, Allow,
	// History. The zero Mode is ask mode, which needs Reviewer.
	Options applypatch.Options
	// Reviewer settles changes in ask mode: a person at a terminal, a web page, a policy.
	Reviewer applypatch.Reviewer
	// MaxCharacters, when positive, is the tool definition's max_characters: a file that
	// view shows is cut to that many characters, with a note saying how to see the rest.
	MaxCharacters int
	// Log, when set, receives each call's input and the text sent back.
	Log io.Writer

	logMu sync.Mutex
}

// Definition is the tool definition to put in the request's tools: the Anthropic-defined
// text_editor_20250728 tool, with max_characters when MaxCharacters is set.
func (e *Editor) Definition() anthropic.BetaToolUnionParam {
	p := &anthropic.BetaToolTextEditor20250728Param{}
	if e.MaxCharacters > 0 {
		p.MaxCharacters = anthropic.Int(int64(e.MaxCharacters))
	}
	return anthropic.BetaToolUnionParam{OfTextEditor20250728: p}
}

// Tool is the editor as a tool of the SDK's tool runner. Give the runner Definition in
// its params' Tools too: the runner then sends that definition rather than a custom tool
// of the same name, and runs this tool for the model's calls.
func (e *Editor) Tool() anthropic.BetaTool {
	return toolrunner.NewBetaTool(ToolName, description, inputSchema, e.Execute)
}

// Execute runs one command and returns the text block of its tool_result. An error is
// sent to the model as an is_error tool_result whose text is "Error: " and the error's
// message, which says what to do next.
func (e *Editor) Execute(ctx context.Context, cmd Command) (anthropic.BetaToolResultBlockParamContentUnion, error) {
	text, err := e.run(ctx, cmd)
	if err != nil {
		text = "Error: " + err.Error()
	}
	e.log(cmd, text, err != nil)
	if err != nil {
		return anthropic.BetaToolResultBlockParamContentUnion{}, err
	}
	return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: text}}, nil
}

// run dispatches a command.
func (e *Editor) run(ctx context.Context, cmd Command) (string, error) {
	if strings.TrimSpace(cmd.Path) == "" {
		return "", errors.New(`"path" is missing: name the file or directory`)
	}
	switch cmd.Command {
	case "view":
		return e.view(ctx, cmd)
	case "create":
		if cmd.FileText == nil {
			return "", errors.New(`create needs "file_text", the content of the new file`)
		}
		p := &applypatch.Patch{Ops: []applypatch.Operation{{Kind: applypatch.OpAdd, Path: cmd.Path, Lines: textLines(*cmd.FileText)}}}
		return e.change(ctx, cmd, func() (*applypatch.Proposal, error) { return applypatch.Resolve(ctx, e.FS, p, &e.Options) })
	case "str_replace":
		if cmd.OldStr == nil {
			return "", errors.New(`str_replace needs "old_str", the exact text to replace`)
		}
		edit := applypatch.Edit{Path: cmd.Path, Old: *cmd.OldStr, New: deref(cmd.NewStr)}
		return e.change(ctx, cmd, func() (*applypatch.Proposal, error) { return applypatch.ResolveEdit(ctx, e.FS, edit, &e.Options) })
	case "insert":
		text := cmd.InsertText
		if text == nil {
			text = cmd.NewStr
		}
		if cmd.InsertLine == nil || text == nil {
			return "", errors.New(`insert needs "insert_line" (the line to insert after, 0 for the top) and "insert_text"`)
		}
		edit := applypatch.Edit{Path: cmd.Path, New: *text, Insert: true, Line: *cmd.InsertLine}
		return e.change(ctx, cmd, func() (*applypatch.Proposal, error) { return applypatch.ResolveEdit(ctx, e.FS, edit, &e.Options) })
	case "undo_edit":
		return "", errors.New("undo_edit is not a command of text_editor_20250728; make the reverse change with str_replace")
	}
	return "", fmt.Errorf("unknown command %q; the commands are view, create, str_replace and insert", cmd.Command)
}

// change resolves a create, str_replace or insert and settles it: reviewed by the
// Reviewer in ask mode when the path needs it, else committed.
func (e *Editor) change(ctx context.Context, cmd Command, propose func() (*applypatch.Proposal, error)) (string, error) {
	review := false
	if m := e.Options.Mode; m != applypatch.ModeEdits && m != applypatch.ModeFullAuto { // ask, or a mode it does not know
		cp, err := e.classify(cmd.Path)
		if err != nil {
			return "", explain(cmd, err)
		}
		// As applypatch.Tool does: a workspace path needs a person unless an allow rule
		// covers it; outside and protected paths go to the Authorizer while resolving.
		review = cp.Class == applypatch.ClassWorkspace && !cp.Allowed
	}
	pr, err := propose()
	if err != nil {
		return "", explain(cmd, err)
	}
	var res *applypatch.Result
	switch {
	case !review:
		res, err = applypatch.Commit(ctx, pr)
	case e.Reviewer == nil:
		return "", errNoReviewer
	default:
		res, err = applypatch.Review(ctx, pr, e.Reviewer)
	}
	if err != nil {
		return "", &resultError{msg: strings.TrimPrefix(res.Text(), "Error: "), err: err}
	}
	text := res.Text()
	if res.Reminder != "" {
		text += "\n\n" + res.Reminder
	}
	return text, nil
}

// errNoReviewer is the error of a change in ask mode without a Reviewer.
var errNoReviewer = errors.New("the editor is in ask mode but has no reviewer to ask; nothing was changed " +
	"(the host must give it a Reviewer, or use the edits or full-auto mode)")

// classify resolves a path and says where it lands, reading no file's contents.
func (e *Editor) classify(path string) (applypatch.ClassifiedPath, error) {
	paths, err := applypatch.Classify(e.FS, &applypatch.Patch{Ops: []applypatch.Operation{{Kind: applypatch.OpUpdate, Path: path}}}, &e.Options)
	if err != nil {
		return applypatch.ClassifiedPath{}, fmt.Errorf("classifying %s: %w", path, err)
	}
	return paths[0], nil
}

// A resultError is a failure whose message is written for the model; it wraps the
// library's error for the host.
type resultError struct {
	msg string
	err error
}

// Error returns the message for the model.
func (e *resultError) Error() string { return e.msg }

// Unwrap returns the library's error.
func (e *resultError) Unwrap() error { return e.err }

// explain words a resolve error for the text editor: the library's messages for a missing
// or existing file speak of patch sections, so those two get the editor's own words.
func explain(cmd Command, err error) error {
	var fe *applypatch.FileError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Reason {
	case applypatch.FileMissing:
		return &resultError{msg: fmt.Sprintf("%s: the file does not exist; view its directory to find the right path, "+
			"or use create to make a new file. Nothing was changed.", cmd.Path), err: err}
	case applypatch.FileExists:
		return &resultError{msg: fmt.Sprintf("%s: the file already exists, and create only makes new files; "+
			"view it and change it with str_replace or insert, or choose another path. Nothing was changed.", cmd.Path), err: err}
	}
	return err
}

// textLines splits a file_text into the lines of a new file: "\n" and "\r\n" break lines,
// and a final line break ends the last line (the file always ends with one).
func textLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// log writes a call's input and the text sent back to Log.
func (e *Editor) log(cmd Command, text string, isError bool) {
	if e.Log == nil {
		return
	}
	in, _ := json.Marshal(cmd)
	e.logMu.Lock()
	defer e.logMu.Unlock()
	fmt.Fprintf(e.Log, "tool_use %s %s\ntool_result (is_error=%t):\n%s\n", ToolName, in, isError, text)
}
