package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// serveEnv makes the test binary run as the server: the TypeScript client starts it.
const serveEnv = "APPLYPATCH_MCP_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tsClient is the folder of the TypeScript client, with its locked npm dependencies.
const tsClient = "testdata/tsclient"

// tsOutput is what the client reports.
type tsOutput struct {
	Tools []struct {
		Name     string   `json:"name"`
		Required []string `json:"required"`
	} `json:"tools"`
	Asked   []string `json:"asked"`
	Results []struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	} `json:"results"`
}

// runTSClient starts the server on dir with flags through the official TypeScript SDK's
// stdio client, runs plan (see testdata/tsclient/client.mjs) and returns the report.
func runTSClient(t *testing.T, dir string, flags []string, plan map[string]any) tsOutput {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the server's history and journal key
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed; .ci/run installs it, with the TypeScript SDK (npm ci in " + tsClient + ")")
	}
	if _, err := os.Stat(filepath.Join(tsClient, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the MCP TypeScript SDK is not installed: run npm ci in " + tsClient + " (.ci/run does)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plan["command"] = self
	plan["args"] = append([]string{"-C", dir}, flags...)
	b, _ := json.Marshal(plan)
	cmd := exec.Command(node, "client.mjs", string(b))
	cmd.Dir = tsClient
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.String())
	}
	var out tsOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output %q: %v\n%s", stdout.String(), err, stderr.String())
	}
	return out
}

// workspace returns a directory holding main.go.
func workspace(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(baseMain), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fileText(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestTypeScriptClient runs the server under a client nobody here wrote, the official MCP
// TypeScript SDK over stdio, in edits mode: it lists apply_patch and undo_patch, a patch
// applies, a credential path is refused with nothing written, and undo_patch reverts the
// patch (H1, H3, F2, U5).
func TestTypeScriptClient(t *testing.T) {
	dir := workspace(t)
	forbidden := "*** Begin Patch\n*** Add File: .ssh/authorized_keys\n+ssh-ed25519 AAAA\n*** End Patch"
	out := runTSClient(t, dir, []string{"-mode", "edits"}, map[string]any{"listTools": true,
		"calls": []map[string]any{{"patchText": update}, {"patchText": forbidden}, {"tool": undoName}}})
	if len(out.Tools) != 2 || out.Tools[0].Name != "apply_patch" || strings.Join(out.Tools[0].Required, ",") != "patchText" ||
		out.Tools[1].Name != undoName || len(out.Tools[1].Required) > 0 {
		t.Errorf("tools = %+v, want apply_patch requiring patchText, and undo_patch requiring nothing", out.Tools)
	}
	if len(out.Results) != 3 {
		t.Fatalf("results = %+v", out.Results)
	}
	if r := out.Results[0]; r.IsError || r.Text != "Applied patch: 1 change\nApplied: main.go hunk 1" {
		t.Errorf("update: %+v", r)
	}
	if r := out.Results[2]; r.IsError || !strings.HasPrefix(r.Text, "Applied patch: 1 change\nApplied: main.go hunk 1\nUndid the change ") {
		t.Errorf("undo: %+v", r)
	}
	if got := fileText(t, filepath.Join(dir, "main.go")); got != baseMain {
		t.Errorf("main.go = %q, want it back as it was", got)
	}
	if r := out.Results[1]; !r.IsError || !strings.HasPrefix(r.Text, "Error: .ssh/authorized_keys: the path is, or leads through a symbolic link to, a credential location") {
		t.Errorf("forbidden path: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, ".ssh")); err == nil {
		t.Error("the forbidden path was written")
	}
}

// TestTypeScriptClientElicitation answers the ask-mode review through the TypeScript SDK's
// elicitation handler with apply, reject and feedback: only apply writes (F4, S2, S4).
func TestTypeScriptClientElicitation(t *testing.T) {
	tests := []struct {
		name    string
		answer  map[string]any
		text    string
		isError bool
		main    string
	}{
		{name: "apply", answer: map[string]any{"action": "accept", "content": map[string]any{"decision": "apply"}},
			text: "Applied patch: 1 change\nApplied: main.go hunk 1", main: newMain},
		{name: "reject", answer: map[string]any{"action": "accept", "content": map[string]any{"decision": "reject"}},
			text: "Error: Patch rejected", isError: true, main: baseMain},
		{name: "feedback", answer: map[string]any{"action": "accept", "content": map[string]any{"decision": "feedback", "feedback": "greet by name instead"}},
			text: "Patch revision requested\nFeedback (whole patch): greet by name instead\nRejected: main.go hunk 1", main: baseMain},
		{name: "empty feedback", answer: map[string]any{"action": "accept", "content": map[string]any{"decision": "feedback", "feedback": ""}},
			text: "Error: " + errEmptyFeedback.Error(), isError: true, main: baseMain},
		{name: "invalid choice", answer: map[string]any{"action": "accept", "content": map[string]any{"decision": "maybe"}},
			text: "Error: the user's review answer could not be read, so nothing was written; the answer must choose apply, reject or feedback; call apply_patch again to ask again (…", isError: true, main: baseMain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := workspace(t)
			out := runTSClient(t, dir, nil, map[string]any{
				"answers": []any{tt.answer}, "calls": []map[string]any{{"patchText": update}}})
			if len(out.Asked) != 1 || !strings.Contains(out.Asked[0], "-\tprintln(\"hi\")\n+\tprintln(\"hello\")") {
				t.Errorf("the person was shown %q", out.Asked)
			}
			want, prefix := strings.CutSuffix(tt.text, "…")
			if len(out.Results) != 1 || out.Results[0].IsError != tt.isError ||
				prefix && !strings.HasPrefix(out.Results[0].Text, want) || !prefix && out.Results[0].Text != want {
				t.Errorf("result = %+v, want %q (isError %v)", out.Results, tt.text, tt.isError)
			}
			if got := fileText(t, filepath.Join(dir, "main.go")); got != tt.main {
				t.Errorf("main.go = %q", got)
			}
		})
	}
}
