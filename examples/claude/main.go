// Command claude runs one coding task with Claude through the Anthropic Go SDK's tool
// runner, offering the model Claude's text editor tool (text_editor_20250728, called
// str_replace_based_edit_tool) and running its view, create, str_replace and insert
// commands through applypatch.
//
// Usage:
//
//	ANTHROPIC_API_KEY=… claude [-C DIR] [-model NAME] [-mode ask|edits|full-auto] [-max-characters N] TASK
//
// Every path is fenced to -C: credential locations are never read or written, and paths
// outside the workspace or in .git are refused. In ask mode (the default) each change is
// shown on the terminal and applied, rejected or sent back with feedback as the person
// answers; the other modes apply without asking. The client reads ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL from the environment.
package main

import (
	"bufio"
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
	"sync"
	"syscall"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// main runs the task and prints the model's last text.
func main() {
	agent, task, closeWorkspace, err := setup(os.Args[1:], os.Stdin, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "claude:", err)
		os.Exit(2)
	}
	defer closeWorkspace()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// Undo a commit an earlier run left interrupted before the model sees any file.
	r, err := applypatch.Recover(ctx, agent.Editor.FS, &agent.Editor.Options)
	if msg := r.String(); msg != "" {
		fmt.Fprintln(os.Stderr, "claude:", msg)
	}
	if err != nil {
		log.Fatal(err)
	}
	text, err := agent.Run(ctx, task)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text)
}

// modes maps the -mode values.
var modes = map[string]applypatch.Mode{"ask": applypatch.ModeAsk, "edits": applypatch.ModeEdits, "full-auto": applypatch.ModeFullAuto}

// setup reads the command line into an agent on the -C workspace, confined by os.Root;
// in ask mode the person answers on stdin and sees the review on stderr.
func setup(args []string, stdin io.Reader, stderr io.Writer) (agent *Agent, task string, closeFn func() error, err error) {
	fl := flag.NewFlagSet("claude", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("C", ".", "the workspace `DIR`ectory")
	model := fl.String("model", string(anthropic.ModelClaudeSonnet5_5), "the model")
	mode := fl.String("mode", "ask", "approval mode: ask, edits or full-auto")
	maxChars := fl.Int("max-characters", 0, "the text editor's max_characters: cut each file view to `N` characters (0: no limit)")
	if err := fl.Parse(args); err != nil {
		return nil, "", nil, err
	}
	m, ok := modes[*mode]
	if !ok {
		return nil, "", nil, fmt.Errorf("-mode must be ask, edits or full-auto, not %q", *mode)
	}
	if fl.NArg() == 0 {
		return nil, "", nil, errors.New("give the task as the arguments")
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		return nil, "", nil, fmt.Errorf("-C %s: %w", *dir, err)
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		return nil, "", nil, fmt.Errorf("-C %s: %w", *dir, errors.Unwrap(err))
	}
	editor := &Editor{FS: afero.NewOsFs(), MaxCharacters: *maxChars,
		Options: applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: m}}
	if m == applypatch.ModeAsk {
		editor.Reviewer = &PromptReviewer{In: bufio.NewReader(stdin), Out: stderr}
	}
	agent = &Agent{Client: anthropic.NewClient(), Model: anthropic.Model(*model), Editor: editor}
	return agent, strings.Join(fl.Args(), " "), confined.Close, nil
}

// A PromptReviewer asks a person at a terminal about each change: it shows the review
// and reads one answer, "y" to apply, "n" (or nothing) to reject, or any other text to
// reject the change and send that text to the model as feedback.
type PromptReviewer struct {
	// In is where the answers are read; Out where the review is shown.
	In  *bufio.Reader
	Out io.Writer

	mu sync.Mutex // one review on the terminal at a time
}

// Review shows the session and settles it as the person answers.
func (p *PromptReviewer) Review(ctx context.Context, s *applypatch.Session) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.Out, "\n%s\n\nApply? [y]es, [n]o, or type feedback for Claude: ", s.Render())
	answer, err := p.In.ReadString('\n')
	if err != nil && answer == "" {
		s.Abort()
		return fmt.Errorf("reading the answer: %w", err)
	}
	switch answer = strings.TrimSpace(answer); strings.ToLower(answer) {
	case "y", "yes":
		_, err = s.Submit(ctx)
	case "", "n", "no":
		err = s.Reject()
	default:
		if err = s.Select(applypatch.Target{}, false, nil); err == nil {
			if err = s.SetFeedback(applypatch.Target{}, answer); err == nil {
				_, err = s.Submit(ctx)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("settling the review: %w", err)
	}
	return nil
}
