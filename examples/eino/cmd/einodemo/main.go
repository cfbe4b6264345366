// Command einodemo runs one coding task with an Eino ReAct agent on an OpenAI model
// (eino-ext's chat-completions model) whose one tool is apply_patch.
//
// Usage:
//
//	OPENAI_API_KEY=… einodemo [-C DIR] [-model NAME] [-mode ask|edits|full-auto] TASK
//
// In ask mode (the default) every patch that touches the workspace pauses the run: the
// review is printed and the answer read from standard input, then the run resumes from
// its checkpoint. OPENAI_BASE_URL, when set, points the model at another endpoint.
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
	"path/filepath"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch"
	einotool "github.com/applypatch/applypatch/examples/eino"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/spf13/afero"
)

// main reads the command line and runs the task.
func main() {
	dir := flag.String("C", ".", "the workspace `DIR`ectory")
	model := flag.String("model", "gpt-5.1", "the model")
	mode := flag.String("mode", "ask", "approval mode: ask, edits or full-auto")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("give the task as the arguments")
	}
	if os.Getenv("OPENAI_API_KEY") == "" {
		log.Fatal("set OPENAI_API_KEY (and OPENAI_BASE_URL for another server that speaks the API) to run a model")
	}
	if err := run(context.Background(), *dir, *model, applypatch.Mode(*mode), strings.Join(flag.Args(), " "), os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run builds the agent over dir and runs the task, asking in on every paused review.
func run(ctx context.Context, dir, model string, mode applypatch.Mode, task string, in io.Reader, out io.Writer) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("-C %s: %w", dir, err)
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		return fmt.Errorf("-C %s: %w", dir, err)
	}
	defer confined.Close()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{APIKey: os.Getenv("OPENAI_API_KEY"), BaseURL: os.Getenv("OPENAI_BASE_URL"), Model: model})
	if err != nil {
		return fmt.Errorf("the model: %w", err)
	}
	patch := einotool.New(&applypatch.Tool{FS: afero.NewOsFs(), Options: applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: mode}})
	patch.Log = os.Stderr
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, MaxStep: 40,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{patch}}})
	if err != nil {
		return fmt.Errorf("the agent: %w", err)
	}
	r, err := einotool.Resumable(ctx, agent, &einotool.MemoryStore{})
	if err != nil {
		return err
	}
	input := []*schema.Message{schema.UserMessage(task)}
	answers := bufio.NewScanner(in)
	runCtx := ctx
	for {
		msg, err := r.Invoke(runCtx, input, compose.WithCheckPointID("task"))
		pending := einotool.Reviews(err)
		if len(pending) == 0 {
			if err != nil {
				return fmt.Errorf("the agent: %w", err)
			}
			fmt.Fprintln(out, msg.Content)
			return nil
		}
		decisions := map[string]any{}
		for _, p := range pending {
			fmt.Fprintf(out, "%s\n\napply all [a], reject [r, or Enter], hunks to apply [1.1 1.3], or feedback text: ", p.Request.Review)
			if !answers.Scan() {
				return errors.New("no answer on standard input")
			}
			decisions[p.ID] = decide(answers.Text())
		}
		runCtx = compose.BatchResumeWithData(ctx, decisions)
	}
}

// decide reads a person's answer: "a", "r" (or nothing), targets as FILE.HUNK (or FILE),
// or feedback.
func decide(answer string) einotool.Decision {
	answer = strings.TrimSpace(answer)
	switch answer {
	case "a":
		return einotool.Decision{}
	case "", "r":
		return einotool.Decision{Reject: true}
	}
	var only []applypatch.Target
	for _, f := range strings.Fields(answer) {
		file, hunk, _ := strings.Cut(f, ".")
		n, err1 := strconv.Atoi(file)
		h, err2 := strconv.Atoi(hunk)
		if err1 != nil || hunk != "" && err2 != nil {
			return einotool.Decision{Feedback: answer}
		}
		only = append(only, applypatch.Target{File: n, Hunk: h})
	}
	return einotool.Decision{Only: only}
}
