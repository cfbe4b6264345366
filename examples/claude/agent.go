package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// maxTurns bounds the model round trips of one task.
const maxTurns = 20

// An Agent runs a task with Claude through the SDK's beta tool runner, offering it the
// text editor tool and answering every call with Editor.
type Agent struct {
	// Client talks to the Messages API.
	Client anthropic.Client
	// Model names the model.
	Model anthropic.Model
	// MaxTokens bounds each reply; zero means 4096.
	MaxTokens int64
	// Editor runs the text editor's commands.
	Editor *Editor
}

// Run sends the task, lets the tool runner answer the model's tool calls until it stops
// for another reason than tool use, and returns the text of the model's last message.
func (a *Agent) Run(ctx context.Context, task string) (string, error) {
	maxTokens := a.MaxTokens
	if maxTokens == 0 {
		maxTokens = 4096
	}
	runner := a.Client.Beta.Messages.NewToolRunner([]anthropic.BetaTool{a.Editor.Tool()}, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model:     a.Model,
			MaxTokens: maxTokens,
			Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(task))},
			// The Anthropic-defined tool: the runner sends this definition, not a custom
			// tool of the same name, and runs Editor.Tool() for its calls.
			Tools: []anthropic.BetaToolUnionParam{a.Editor.Definition()},
		},
		MaxIterations: maxTurns,
	})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		return "", fmt.Errorf("the tool runner: %w", err)
	}
	if msg == nil {
		return "", fmt.Errorf("the tool runner returned no message")
	}
	if msg.StopReason == anthropic.BetaStopReasonToolUse {
		return "", fmt.Errorf("the model was still calling tools after %d turns", maxTurns)
	}
	var text []string
	for _, block := range msg.Content {
		if block.Type == "text" {
			text = append(text, block.Text)
		}
	}
	return strings.Join(text, "\n"), nil
}
