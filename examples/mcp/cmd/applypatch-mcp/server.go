package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/afero"
)

// Config is what the server serves.
type Config struct {
	// FS and Workspace are where patches apply: payload paths are relative to Workspace
	// and resolved on FS. WorkspaceFs, when set, carries every read and write inside the
	// workspace (see applypatch.Options).
	FS          afero.Fs
	Workspace   string
	WorkspaceFs afero.Fs
	// Confine, when set, opens Workspace as an os.Root (package fs/rootfs) for each call,
	// which then carries the call's reads and writes inside the workspace and is closed
	// when the call ends, in place of WorkspaceFs. A server lives long: the workspace it
	// serves is the directory Workspace leads to at each call, never one opened before and
	// moved, removed or replaced since.
	Confine bool
	// Mode is the approval mode. In applypatch.ModeAsk mode every call is shown to the person
	// through MCP elicitation before anything is written.
	Mode applypatch.Mode
	// Fallback is the mode of an ask-mode call from a client that cannot elicit. Fallback
	// applypatch.ModeAsk refuses such calls: there is no one to ask.
	Fallback applypatch.Mode
	// AllowOutside and AllowProtected let patches write outside the workspace and to
	// protected paths such as .git/. Credential paths are refused whatever they say.
	AllowOutside, AllowProtected bool
	// History, when set, records every change the server applies, and the server offers
	// the undo_patch tool, which reverts them one by one (and applies them again).
	History *applypatch.History
}

// errCannotAsk refuses an ask-mode call from a client without elicitation.
var errCannotAsk = errors.New("this server applies a patch only after the user reviews it, " +
	"but the client cannot ask the user (it does not support MCP elicitation); nothing was written. " +
	"Tell the user: restarting the server with -fallback edits applies patches without review " +
	"for clients that cannot ask, and -mode edits does so for every client")

// server holds the configuration, the key that signs review state, and halt, which
// cancels the calls in flight once it is done.
type server struct {
	cfg  Config
	key  []byte
	halt context.Context

	mu   sync.Mutex
	used map[string]bool // the nonces of the questions answered: each answer counts once
}

// NewServer returns an MCP server exposing the apply_patch tool on cfg's workspace, and
// undo_patch when cfg keeps a history.
func NewServer(cfg Config) *mcp.Server {
	return newServer(cfg, context.Background())
}

// newServer is NewServer whose calls in flight are cancelled once halt is done: each
// commit then rolls back under its context, and the call answers so (X17).
func newServer(cfg Config, halt context.Context) *mcp.Server {
	s := &server{cfg: cfg, key: newKey(), halt: halt}
	srv := mcp.NewServer(&mcp.Implementation{Name: "applypatch", Title: "applypatch", Version: "v0.1.0"}, nil)
	def := (&applypatch.Tool{}).Definition()
	srv.AddTool(&mcp.Tool{
		Name:        def.Name,
		Title:       "Apply patch",
		Description: def.Description,
		InputSchema: def.Parameters,
		Annotations: &mcp.ToolAnnotations{Title: "Apply patch", DestructiveHint: new(true), OpenWorldHint: new(false)},
	}, s.applyPatch)
	if cfg.History != nil {
		srv.AddTool(undoTool(), s.undoPatch)
	}
	return srv
}

// applyPatch handles one tools/call of apply_patch.
func (s *server) applyPatch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, cancel := s.haltable(ctx)
	defer cancel()
	mode, ok := s.mode(req)
	if !ok {
		return toolResult(applypatch.ErrorResult(errCannotAsk)), nil
	}
	opts, done, err := s.options(mode)
	if err != nil {
		return toolResult(applypatch.ErrorResult(err)), nil
	}
	defer done()
	tool := &applypatch.Tool{FS: s.cfg.FS, Options: opts}
	if mode == applypatch.ModeAsk {
		return s.review(ctx, tool, req)
	}
	_, res, _ := tool.Call(ctx, req.Params.Arguments)
	return toolResult(res), nil
}

// mode is the approval mode of a call: the configured one, or the fallback for an
// ask-mode call from a client that cannot elicit. ok is false when the fallback refuses
// the call: there is no one to ask.
func (s *server) mode(req *mcp.CallToolRequest) (mode applypatch.Mode, ok bool) {
	if s.cfg.Mode != applypatch.ModeAsk || canElicit(req) {
		return s.cfg.Mode, true
	}
	return s.cfg.Fallback, s.cfg.Fallback != applypatch.ModeAsk
}

// options are the library's options of a call in mode: the workspace, the authority the
// flags give, the payload limit and the history that records what is written. done
// closes what the call opened: the workspace's os.Root, when the server confines each
// call.
func (s *server) options(mode applypatch.Mode) (opts applypatch.Options, done func(), err error) {
	opts = applypatch.Options{Workspace: s.cfg.Workspace, WorkspaceFs: s.cfg.WorkspaceFs, Mode: mode,
		Authorizer: s.authorizer(), Limits: applypatch.Limits{Payload: payloadLimit}, History: s.cfg.History}
	if !s.cfg.Confine {
		return opts, func() {}, nil
	}
	root, err := rootfs.Open(s.cfg.Workspace)
	if err != nil {
		return opts, nil, errWorkspaceGone
	}
	opts.WorkspaceFs = root
	return opts, func() { root.Close() }, nil
}

// errWorkspaceGone refuses a call whose workspace directory cannot be opened.
var errWorkspaceGone = errors.New("the workspace directory cannot be opened (it was removed, moved or " +
	"is no longer a directory); nothing was written. Tell the user, who may restore it or restart the " +
	"server on another directory")

// haltable returns ctx, cancelled as well when the server halts.
func (s *server) haltable(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.halt, cancel)
	return ctx, func() { stop(); cancel() }
}

// authorizer allows the classes the configuration allows, and refuses the others naming
// the server flag that would allow them (F4).
func (s *server) authorizer() applypatch.Authorizer {
	return serverFlags{
		{applypatch.ClassOutside, s.cfg.AllowOutside, "-allow-outside"},
		{applypatch.ClassProtected, s.cfg.AllowProtected, "-allow-protected"},
	}
}

// serverFlags allow a class of paths each when their server flag is set.
type serverFlags []struct {
	class   applypatch.Class
	allowed bool
	flag    string
}

// Authorize refuses the paths of a class whose flag is not set, naming the flag, which
// only the user can set. A protected path outside the workspace, such as
// ../.git/hooks/x, needs both flags.
func (fl serverFlags) Authorize(_ context.Context, _ applypatch.Mode, paths []applypatch.ClassifiedPath) error {
	var missing []string
	for _, f := range fl {
		if !f.allowed && slices.ContainsFunc(paths, func(p applypatch.ClassifiedPath) bool {
			return p.Class == f.class || (f.class == applypatch.ClassOutside && p.Outside)
		}) {
			missing = append(missing, fmt.Sprintf("%s paths need the server flag %s", f.class, f.flag))
		}
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, " and ") + ", which only the user can set")
	}
	return nil
}

// canElicit reports whether the client can show a form to the person.
func canElicit(req *mcp.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// Neither form nor url declared means form (the capability predates the modes).
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// toolResult turns a result into the tool's answer: the model-visible text, the result
// as structured content, and isError for an error result.
func toolResult(res *applypatch.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: res.Text()}},
		StructuredContent: res,
		IsError:           res.Status == applypatch.StatusError,
	}
}
