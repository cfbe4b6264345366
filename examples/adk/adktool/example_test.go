package adktool_test

import (
	"context"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/adk/adktool"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/genai"
)

// ExampleNew wires the tool into an ADK agent, as the README shows. It is compiled, not
// run: it would talk to Gemini.
func ExampleNew() {
	ctx, dir, key, task := context.Background(), "/path/to/project", "API key", "Rename greet to hello"
	ws, err := rootfs.Open(dir)
	if err != nil {
		panic(err)
	}
	patch, err := adktool.New(&applypatch.Tool{FS: afero.NewOsFs(), Options: applypatch.Options{
		Workspace: dir, WorkspaceFs: ws, Mode: applypatch.ModeAsk,
	}})
	if err != nil {
		panic(err)
	}
	model, err := gemini.NewModel(ctx, "gemini-2.5-flash", &genai.ClientConfig{APIKey: key})
	if err != nil {
		panic(err)
	}
	editor, err := llmagent.New(llmagent.Config{Name: "editor", Model: model,
		Instruction: "Edit files with apply_patch.", Tools: []tool.Tool{patch}})
	if err != nil {
		panic(err)
	}
	r, err := runner.New(runner.Config{AppName: "app", Agent: editor, SessionService: session.InMemoryService(), AutoCreateSession: true})
	if err != nil {
		panic(err)
	}
	for ev, err := range r.Run(ctx, "user", "session", genai.NewContentFromText(task, genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.Author, ev.Content)
	}
}
