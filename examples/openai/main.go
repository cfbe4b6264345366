// Command openai runs one coding task with an OpenAI model through the Responses API and
// applies the patches the model writes through applypatch.
//
// Usage:
//
//	OPENAI_API_KEY=… openai [-C DIR] [-model NAME] [-tool freeform|builtin|function] [-mode edits|full-auto] TASK
//
// By default the model is offered apply_patch as a freeform tool whose input, the patch
// itself, a Lark grammar constrains; -tool builtin offers the Responses API's built-in
// apply_patch tool, whose apply_patch_call items carry one file operation each, and -tool
// function a function tool described by applypatch's own definition. The patch calls of
// one response apply together or not at all. Every patch is fenced to -C, placed hunk by
// hunk or refused, and written as one transaction; the model sees the result text. The
// client reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/openai/openai-go/v3"
	"github.com/spf13/afero"
)

func main() {
	agent, task, closeWorkspace, err := setup(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openai:", err)
		os.Exit(2)
	}
	defer closeWorkspace()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := recoverWorkspace(ctx, agent.Tool, os.Stderr); err != nil {
		log.Fatal(err)
	}
	text, err := agent.Run(ctx, task)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text)
}

// recoverWorkspace undoes a commit an earlier run left interrupted in the tool's
// workspace (killed, or the machine stopped) before the model sees any file, and says
// on log what it did.
func recoverWorkspace(ctx context.Context, tool *applypatch.Tool, log io.Writer) error {
	r, err := applypatch.Recover(ctx, tool.FS, &tool.Options)
	if msg := r.String(); msg != "" {
		fmt.Fprintln(log, "openai:", msg)
	}
	return err
}

// modes maps the -mode values; ask needs a person, which this command has no way to ask.
var modes = map[string]applypatch.Mode{"edits": applypatch.ModeEdits, "full-auto": applypatch.ModeFullAuto}

// offers maps the -tool values.
var offers = map[string]Offer{"freeform": OfferFreeform, "builtin": OfferBuiltin, "function": OfferFunction}

// setup reads the command line into an agent on the -C workspace, confined by os.Root.
func setup(args []string, stderr io.Writer) (agent *Agent, task string, closeFn func() error, err error) {
	fl := flag.NewFlagSet("openai", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("C", ".", "the workspace `DIR`ectory")
	model := fl.String("model", "gpt-5.1", "the model")
	offer := fl.String("tool", "freeform", "how apply_patch is offered: freeform (a Lark-constrained custom tool), builtin or function")
	mode := fl.String("mode", "edits", "approval mode: edits or full-auto")
	if err := fl.Parse(args); err != nil {
		return nil, "", nil, err
	}
	o, ok := offers[*offer]
	if !ok {
		return nil, "", nil, fmt.Errorf("-tool must be freeform, builtin or function, not %q", *offer)
	}
	m, ok := modes[*mode]
	if !ok {
		return nil, "", nil, fmt.Errorf("-mode must be edits or full-auto, not %q", *mode)
	}
	if fl.NArg() == 0 {
		return nil, "", nil, errors.New("give the task as the arguments")
	}
	if os.Getenv("OPENAI_API_KEY") == "" {
		return nil, "", nil, errors.New("set OPENAI_API_KEY (and OPENAI_BASE_URL for another server that speaks the API) to run a model")
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		return nil, "", nil, err
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		return nil, "", nil, fmt.Errorf("-C %s: %w", *dir, errors.Unwrap(err))
	}
	tool := &applypatch.Tool{FS: afero.NewOsFs(), Options: applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: m}}
	agent = &Agent{Client: openai.NewClient(), Model: *model, Tool: tool, Offer: o, Log: stderr}
	return agent, strings.Join(fl.Args(), " "), confined.Close, nil
}
