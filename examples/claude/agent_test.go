package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// fakeAPI is a local Messages API: it answers POST /v1/messages with the next of its
// replies (Messages API JSON, as documented) and keeps every request body it was sent.
type fakeAPI struct {
	mu       sync.Mutex
	replies  []string
	requests []map[string]any
}

// ServeHTTP records the request and answers with the next reply.
func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" || len(f.replies) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"unexpected request"}}`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(b, &req)
	f.requests = append(f.requests, req)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, f.replies[0])
	f.replies = f.replies[1:]
}

// toolUse is a tool_use block calling the text editor with input.
func toolUse(id string, input map[string]any) string {
	b, _ := json.Marshal(map[string]any{"type": "tool_use", "id": id, "name": ToolName, "input": input})
	return string(b)
}

// message is a Messages API response whose content is blocks: it stops for tool use
// when a block is a tool_use, else at the end of its turn.
func message(id string, blocks ...string) string {
	stop := "end_turn"
	for _, b := range blocks {
		if strings.Contains(b, `"type":"tool_use"`) {
			stop = "tool_use"
		}
	}
	return `{"id":"` + id + `","type":"message","role":"assistant","model":"claude-test","content":[` +
		strings.Join(blocks, ",") + `],"stop_reason":"` + stop + `","stop_sequence":null,` +
		`"usage":{"input_tokens":10,"output_tokens":5}}`
}

// done is the model's last message.
var done = message("msg_done", `{"type":"text","text":"Done."}`)

// testLog writes what it is given to the test's log.
type testLog struct{ t *testing.T }

// Write logs p as one entry.
func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// newAgent returns an agent whose client talks to api, editing an in-memory workspace
// /ws that holds files, in edits mode unless the caller changes the editor.
func newAgent(t *testing.T, api *fakeAPI, files map[string]string) (*Agent, afero.Fs) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	fsys := afero.NewMemMapFs()
	for name, text := range files {
		afero.WriteFile(fsys, "/ws/"+name, []byte(text), 0o644)
	}
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	editor := &Editor{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeEdits}, Log: testLog{t}}
	return &Agent{Client: client, Model: "claude-test", Editor: editor}, fsys
}

// run runs the agent on a task and checks it ends with the model's "Done.".
func run(t *testing.T, agent *Agent, api *fakeAPI, turns int) {
	t.Helper()
	text, err := agent.Run(context.Background(), "edit the files")
	if err != nil || text != "Done." {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if len(api.requests) != turns {
		t.Fatalf("%d requests, want %d", len(api.requests), turns)
	}
}

// result is a tool_result block a request sent back.
type result struct {
	id, text string
	isError  bool
}

// results returns the tool_result blocks of a request's last message, the user turn
// that answers the model's tool calls, in order.
func results(t *testing.T, req map[string]any) []result {
	t.Helper()
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("request has no messages: %v", req)
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	blocks, _ := last["content"].([]any)
	var out []result
	for _, b := range blocks {
		block, _ := b.(map[string]any)
		if block["type"] != "tool_result" {
			t.Fatalf("block %v is not a tool_result", block)
		}
		content, _ := block["content"].([]any)
		if len(content) != 1 {
			t.Fatalf("tool_result content = %v, want one text block", block["content"])
		}
		text, _ := content[0].(map[string]any)
		if text["type"] != "text" {
			t.Fatalf("tool_result content = %v, want a text block", content[0])
		}
		isError, _ := block["is_error"].(bool)
		out = append(out, result{id: block["tool_use_id"].(string), text: text["text"].(string), isError: isError})
	}
	return out
}

// fileText is the content of a file, or its read error in angle brackets.
func fileText(fsys afero.Fs, name string) string {
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestStrReplace runs a successful str_replace through the SDK's tool runner: the
// request offers the Anthropic-defined text editor tool (with max_characters), the file
// is changed, and the tool_result carries the library's result text.
func TestStrReplace(t *testing.T) {
	api := &fakeAPI{replies: []string{
		message("msg_1", `{"type":"text","text":"I'll fix the greeting."}`,
			toolUse("toolu_1", map[string]any{"command": "str_replace", "path": "greet.txt", "old_str": "world", "new_str": "there"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"greet.txt": "hello\nworld\n"})
	agent.Editor.MaxCharacters = 10000
	run(t, agent, api, 2)
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nthere\n" {
		t.Errorf("greet.txt = %q", got)
	}
	tools, _ := json.Marshal(api.requests[0]["tools"])
	if want := `[{"max_characters":10000,"name":"str_replace_based_edit_tool","type":"text_editor_20250728"}]`; string(tools) != want {
		t.Errorf("tools offered = %s, want %s", tools, want)
	}
	want := []result{{id: "toolu_1", text: "Applied patch: 1 change\nApplied: greet.txt hunk 1"}}
	if got := results(t, api.requests[1]); !equal(got, want) {
		t.Errorf("tool results = %+v, want %+v", got, want)
	}
}

// equal reports whether two lists of tool results are the same.
func equal(a, b []result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCredentialRefused sends a str_replace, a create and a view on .ssh/config paths in
// one turn: the runner runs them together, each is an is_error tool_result saying the
// path is a credential location, and nothing is written.
func TestCredentialRefused(t *testing.T) {
	api := &fakeAPI{replies: []string{
		message("msg_1",
			toolUse("toolu_edit", map[string]any{"command": "str_replace", "path": ".ssh/config", "old_str": "Host old", "new_str": "Host evil"}),
			toolUse("toolu_create", map[string]any{"command": "create", "path": "deploy/.ssh/config", "file_text": "Host *\n"}),
			toolUse("toolu_view", map[string]any{"command": "view", "path": "/ws/.ssh/config"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{".ssh/config": "Host old\n"})
	run(t, agent, api, 2)
	if got := fileText(fsys, "/ws/.ssh/config"); got != "Host old\n" {
		t.Errorf(".ssh/config = %q, want it unchanged", got)
	}
	if _, err := fsys.Stat("/ws/deploy"); err == nil {
		t.Error("the create on a credential path wrote deploy/")
	}
	got := results(t, api.requests[1])
	if len(got) != 3 {
		t.Fatalf("tool results = %+v", got)
	}
	for i, id := range []string{"toolu_edit", "toolu_create", "toolu_view"} {
		if got[i].id != id || !got[i].isError || !strings.HasPrefix(got[i].text, "Error: ") || !strings.Contains(got[i].text, "credential location") {
			t.Errorf("result %d = %+v, want an error for %s naming a credential location", i, got[i], id)
		}
	}
}

// TestAmbiguous sends a str_replace whose old_str occurs twice: the tool_result is an
// error that says how many places and on which lines, and the file is unchanged.
func TestAmbiguous(t *testing.T) {
	const src = "package main\n\nfunc a() { x := 1 }\n\nfunc b() { x := 1 }\n"
	api := &fakeAPI{replies: []string{
		message("msg_1", toolUse("toolu_1", map[string]any{"command": "str_replace", "path": "main.go", "old_str": "x := 1", "new_str": "x := 2"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"main.go": src})
	run(t, agent, api, 2)
	if got := fileText(fsys, "/ws/main.go"); got != src {
		t.Errorf("main.go = %q, want it unchanged", got)
	}
	got := results(t, api.requests[1])
	want := "Error: main.go: the old text occurs at 2 places, starting on lines 3, 5; include more of the lines around it so that it occurs once.\nNothing was applied."
	if len(got) != 1 || !got[0].isError || got[0].text != want {
		t.Errorf("tool results = %+v, want the error %q", got, want)
	}
}

// TestAskMode runs two changes in ask mode through a Reviewer standing in for a person:
// the first, a str_replace, is rejected with feedback, and its tool_result (a success:
// the model goes on) carries the rejection and the feedback, with nothing written; the
// second, an insert at the top, is approved and applied. The reviewer saw each diff.
func TestAskMode(t *testing.T) {
	const src = "package main\n\nfunc greet() string { return \"hi\" }\n"
	api := &fakeAPI{replies: []string{
		message("msg_1", toolUse("toolu_rename", map[string]any{"command": "str_replace", "path": "greet.go",
			"old_str": "func greet()", "new_str": "func hello()"})),
		message("msg_2", toolUse("toolu_doc", map[string]any{"command": "insert", "path": "greet.go",
			"insert_line": 0, "insert_text": "// Package main greets."})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"greet.go": src})
	var seen []string
	agent.Editor.Options.Mode = applypatch.ModeAsk
	agent.Editor.Reviewer = applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		seen = append(seen, s.Render())
		if len(seen) == 1 {
			if err := s.SetFeedback(applypatch.Target{File: 1, Hunk: 1}, "keep the name greet"); err != nil {
				return err
			}
		}
		_, err := s.Submit(ctx)
		return err
	})
	run(t, agent, api, 3)
	if got := fileText(fsys, "/ws/greet.go"); got != "// Package main greets.\n"+src {
		t.Errorf("greet.go = %q", got)
	}
	if len(seen) != 2 || !strings.Contains(seen[0], "3 + │ func hello() string") || !strings.Contains(seen[1], "1 + │ // Package main greets.") {
		t.Errorf("the reviewer saw %q", seen)
	}
	rejected := []result{{id: "toolu_rename", text: "Patch revision requested\nRejected: greet.go hunk 1\nFeedback: greet.go hunk 1: keep the name greet"}}
	if got := results(t, api.requests[1]); !equal(got, rejected) {
		t.Errorf("first tool result = %+v, want %+v", got, rejected)
	}
	applied := []result{{id: "toolu_doc", text: "Applied patch: 1 change\nApplied: greet.go hunk 1"}}
	if got := results(t, api.requests[2]); !equal(got, applied) {
		t.Errorf("second tool result = %+v, want %+v", got, applied)
	}
}
