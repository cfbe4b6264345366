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

	"github.com/applypatch/applypatch"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/spf13/afero"
)

// fakeAPI is a local Responses API: it answers POST /responses with the next of its
// replies (Responses API JSON, as documented) and keeps every request body it was sent.
type fakeAPI struct {
	mu       sync.Mutex
	replies  []string
	requests []map[string]any
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/responses" || len(f.replies) == 0 {
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

// response is a Responses API response with the given output items.
func response(id string, output ...string) string {
	return `{"id":"` + id + `","object":"response","created_at":1767225600,"model":"gpt-test","status":"completed",` +
		`"output":[` + strings.Join(output, ",") + `]}`
}

const doneMessage = `{"type":"message","id":"msg_1","role":"assistant","status":"completed",` +
	`"content":[{"type":"output_text","text":"Done.","annotations":[]}]}`

// newAgent returns an agent whose client talks to api, applying patches in edits mode
// on an in-memory workspace /ws holding greet.txt.
func newAgent(t *testing.T, api *fakeAPI, offer Offer) (*Agent, afero.Fs) {
	t.Helper()
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/greet.txt", []byte("hello\nworld\n"), 0o644)
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/"), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeEdits}}
	return &Agent{Client: client, Model: "gpt-test", Tool: tool, Offer: offer}, fsys
}

func fileText(fsys afero.Fs, name string) string {
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestBuiltinApplyPatch runs the host loop with the Responses API's built-in apply_patch
// tool. The calls of one response are one change: the first response's create, an update
// that does not match and a credential path write nothing; the credential path, refused
// before any hunk is placed, gets its error and the others are told they wait for it; the
// second response's two calls apply together (H4, H7, F2).
func TestBuiltinApplyPatch(t *testing.T) {
	create := `{"type":"apply_patch_call","id":"apc_1","call_id":"call_create","status":"completed",` +
		`"operation":{"type":"create_file","path":"notes/todo.txt","diff":"+buy milk\n+call home\n"}}`
	api := &fakeAPI{replies: []string{
		response("resp_1", create,
			`{"type":"apply_patch_call","id":"apc_3","call_id":"call_miss","status":"completed",`+
				`"operation":{"type":"update_file","path":"greet.txt","diff":"@@\n-nowhere\n+x\n"}}`,
			`{"type":"apply_patch_call","id":"apc_4","call_id":"call_ssh","status":"completed",`+
				`"operation":{"type":"create_file","path":".ssh/authorized_keys","diff":"+ssh-ed25519 AAAA\n"}}`),
		response("resp_2", create,
			`{"type":"apply_patch_call","id":"apc_2","call_id":"call_update","status":"completed",`+
				`"operation":{"type":"update_file","path":"greet.txt","diff":"@@\n hello\n-world\n+there\n"}}`),
		response("resp_3", doneMessage),
	}}
	agent, fsys := newAgent(t, api, OfferBuiltin)
	text, err := agent.Run(context.Background(), "tidy up")
	if err != nil || text != "Done." {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if got := fileText(fsys, "/ws/notes/todo.txt"); got != "buy milk\ncall home\n" {
		t.Errorf("notes/todo.txt = %q", got)
	}
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nthere\n" {
		t.Errorf("greet.txt = %q", got)
	}
	if _, err := fsys.Stat("/ws/.ssh"); err == nil {
		t.Error("the credential path was written")
	}
	if len(api.requests) != 3 {
		t.Fatalf("%d requests, want 3", len(api.requests))
	}
	first := api.requests[0]
	if diff := cmp.Diff([]any{map[string]any{"type": "apply_patch"}}, first["tools"]); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if first["input"] != "tidy up" || first["model"] != "gpt-test" {
		t.Errorf("first request: input %v, model %v", first["input"], first["model"])
	}
	if api.requests[1]["previous_response_id"] != "resp_1" {
		t.Errorf("previous_response_id = %v", api.requests[1]["previous_response_id"])
	}
	checkSent(t, api.requests[1], []sent{
		{"call_create", "failed", "Error: not applied: the calls of one response apply together or not at all, and call call_ssh (.ssh/authorized_keys) failed;…"},
		{"call_miss", "failed", "Error: not applied: …call call_ssh (.ssh/authorized_keys) failed;…"},
		{"call_ssh", "failed", "Error: ….ssh/authorized_keys: the path is, or leads through a symbolic link to, a credential location…"},
	})
	checkSent(t, api.requests[2], []sent{
		{"call_create", "completed", "Applied patch: 2 changes\nApplied: notes/todo.txt\nApplied: greet.txt hunk 1"},
		{"call_update", "completed", "Applied patch: 2 changes\nApplied: notes/todo.txt\nApplied: greet.txt hunk 1"},
	})
}

// sent is an output item a request carries back: its call, status and text.
type sent struct{ callID, status, output string }

// checkSent checks the output items a request sent back: each call's id, status and text
// (exact, or with "…" standing for any text).
func checkSent(t *testing.T, req map[string]any, want []sent) {
	t.Helper()
	items, _ := req["input"].([]any)
	if len(items) != len(want) {
		t.Fatalf("input items sent back = %v", req["input"])
	}
	for i, w := range want {
		item, _ := items[i].(map[string]any)
		output, _ := item["output"].(string)
		if item["type"] != "apply_patch_call_output" || item["call_id"] != w.callID || item["status"] != w.status || !matches(w.output, output) {
			t.Errorf("item %d = %v, want %s %s %q", i, item, w.callID, w.status, w.output)
		}
	}
}

// matches reports whether s is pattern, where each "…" in pattern stands for any text.
func matches(pattern, s string) bool {
	parts := strings.Split(pattern, "…")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(parts) > 1 || s == ""
}

// TestFreeformApplyPatch runs the host loop with the default offer, the freeform tool: the
// request carries a custom tool with the library's Lark grammar, the model's
// custom_tool_call holds a whole patch, and the custom_tool_call_output carries the text
// back (H6).
func TestFreeformApplyPatch(t *testing.T) {
	call, _ := json.Marshal(map[string]any{"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_ff", "name": "apply_patch",
		"input": "*** Begin Patch\n*** Update File: greet.txt\n@@\n-world\n+there\n*** Add File: new.txt\n+new\n*** End Patch\n"})
	api := &fakeAPI{replies: []string{response("resp_1", string(call)), response("resp_2", doneMessage)}}
	agent, fsys := newAgent(t, api, OfferFreeform)
	if text, err := agent.Run(context.Background(), "greet"); err != nil || text != "Done." {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nthere\n" {
		t.Errorf("greet.txt = %q", got)
	}
	def := (&applypatch.Tool{}).FreeformDefinition()
	wantTools := []any{map[string]any{"type": "custom", "name": "apply_patch", "description": def.Description,
		"format": map[string]any{"type": "grammar", "syntax": "lark", "definition": def.Grammar}}}
	if diff := cmp.Diff(wantTools, api.requests[0]["tools"]); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	items, _ := api.requests[1]["input"].([]any)
	wantItem := map[string]any{"type": "custom_tool_call_output", "call_id": "call_ff",
		"output": "Applied patch: 2 changes\nApplied: greet.txt hunk 1\nApplied: new.txt"}
	if len(items) != 1 || !cmp.Equal(items[0], wantItem) {
		t.Errorf("input sent back = %v, want [%v]", api.requests[1]["input"], wantItem)
	}
}

// TestFunctionApplyPatch runs the host loop with apply_patch offered as a function tool
// from Tool.Definition(): the model's function_call with a whole *** Begin Patch payload
// is applied, and its text goes back as the function_call_output (H1, H3).
func TestFunctionApplyPatch(t *testing.T) {
	args, _ := json.Marshal(map[string]string{"patchText": "*** Begin Patch\n*** Update File: greet.txt\n@@\n-world\n+there\n" +
		"*** Add File: new.txt\n+new\n*** End Patch"})
	call, _ := json.Marshal(map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_fn", "name": "apply_patch",
		"arguments": string(args), "status": "completed"})
	api := &fakeAPI{replies: []string{response("resp_1", string(call)), response("resp_2", doneMessage)}}
	agent, fsys := newAgent(t, api, OfferFunction)
	if text, err := agent.Run(context.Background(), "greet"); err != nil || text != "Done." {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nthere\n" {
		t.Errorf("greet.txt = %q", got)
	}
	if got := fileText(fsys, "/ws/new.txt"); got != "new\n" {
		t.Errorf("new.txt = %q", got)
	}
	tools, _ := api.requests[0]["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools = %v", api.requests[0]["tools"])
	}
	tool := tools[0].(map[string]any)
	var schema any
	json.Unmarshal((&applypatch.Tool{}).Definition().Parameters, &schema)
	if tool["type"] != "function" || tool["name"] != (&applypatch.Tool{}).Definition().Name || tool["description"] != (&applypatch.Tool{}).Definition().Description ||
		!cmp.Equal(tool["parameters"], schema) || tool["strict"] != false {
		t.Errorf("function tool = %v", tool)
	}
	items, _ := api.requests[1]["input"].([]any)
	wantItem := map[string]any{"type": "function_call_output", "call_id": "call_fn",
		"output": "Applied patch: 2 changes\nApplied: greet.txt hunk 1\nApplied: new.txt"}
	if len(items) != 1 || !cmp.Equal(items[0], wantItem) {
		t.Errorf("input sent back = %v, want [%v]", api.requests[1]["input"], wantItem)
	}
}

// TestCallerEchoed runs the host loop with a call a program made (the API's "caller"):
// its output carries the same caller back, as the API asks (H7).
func TestCallerEchoed(t *testing.T) {
	call := `{"type":"apply_patch_call","id":"apc_1","call_id":"call_prog","status":"completed",` +
		`"caller":{"type":"program","caller_id":"ci_1"},` +
		`"operation":{"type":"create_file","path":"made.txt","diff":"+by a program\n"}}`
	api := &fakeAPI{replies: []string{response("resp_1", call), response("resp_2", doneMessage)}}
	agent, fsys := newAgent(t, api, OfferBuiltin)
	if text, err := agent.Run(context.Background(), "make"); err != nil || text != "Done." {
		t.Fatalf("Run = %q, %v", text, err)
	}
	if got := fileText(fsys, "/ws/made.txt"); got != "by a program\n" {
		t.Errorf("made.txt = %q", got)
	}
	items, _ := api.requests[1]["input"].([]any)
	if len(items) != 1 {
		t.Fatalf("input sent back = %v", api.requests[1]["input"])
	}
	item, _ := items[0].(map[string]any)
	if !cmp.Equal(item["caller"], map[string]any{"type": "program", "caller_id": "ci_1"}) || item["call_id"] != "call_prog" {
		t.Errorf("output item = %v, want the caller echoed", item)
	}
}
