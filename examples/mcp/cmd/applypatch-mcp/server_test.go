package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/afero"
)

const (
	baseMain = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	newMain  = "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"
	update   = "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n*** End Patch"
)

// Protocol versions the elicitation tests run under: the current one, where the server
// returns its question as an input request, and an earlier one, where the SDK sends it
// as an elicitation/create request.
var protocols = []string{"", "2025-11-25"}

// connect serves cfg (on a MemMapFs workspace /ws holding main.go) to an in-memory client.
func connect(t *testing.T, cfg Config, client *mcp.ClientOptions, protocol string) (*mcp.ClientSession, afero.Fs) {
	t.Helper()
	if cfg.FS == nil {
		cfg.FS = afero.NewMemMapFs()
	}
	cfg.Workspace = "/ws"
	afero.WriteFile(cfg.FS, "/ws/main.go", []byte(baseMain), 0o644)
	return session(t, cfg, client, protocol), cfg.FS
}

// connectOS connects a client to a server that main configures from flags on the
// directory dir, confined as main confines it.
func connectOS(t *testing.T, dir string) *mcp.ClientSession {
	t.Helper()
	cfg, err := parseFlags([]string{"-C", dir, "-mode", "edits"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := confine(cfg); err != nil {
		t.Fatal(err)
	}
	return session(t, *cfg, nil, "")
}

// session connects a client to a server on cfg over in-memory transports, closed when the
// test ends.
func session(t *testing.T, cfg Config, client *mcp.ClientOptions, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := NewServer(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, client).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// call calls apply_patch with args and returns its text.
func call(t *testing.T, cs *mcp.ClientSession, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	return callTool(t, cs, "apply_patch", args)
}

// callTool calls the tool name with args and returns its text.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content = %v, want one text", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text, res
}

func readFile(t *testing.T, fsys afero.Fs, name string) string {
	t.Helper()
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestToolsList checks that the server lists apply_patch with the library's definition (H1).
func TestToolsList(t *testing.T) {
	cs, _ := connect(t, Config{Mode: applypatch.ModeEdits}, nil, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 {
		t.Fatalf("tools = %v, want one", res.Tools)
	}
	tool := res.Tools[0]
	if tool.Name != "apply_patch" || tool.Description != (&applypatch.Tool{}).Definition().Description {
		t.Errorf("tool = %q, description %q", tool.Name, tool.Description)
	}
	var want any
	json.Unmarshal((&applypatch.Tool{}).Definition().Parameters, &want)
	if diff := cmp.Diff(want, tool.InputSchema); diff != "" {
		t.Errorf("input schema (-want +got):\n%s", diff)
	}
}

// TestCall checks calls without review: a success writes, a bad payload, bad arguments and
// a credential path are error results that write nothing (H2, H3, F2).
func TestCall(t *testing.T) {
	tests := []struct {
		name    string
		mode    applypatch.Mode
		args    any
		text    string // exact, or a prefix when it ends in "…"
		isError bool
		main    string // main.go afterwards
		sshKeys bool   // whether .ssh/authorized_keys exists afterwards
	}{
		{name: "applied", mode: applypatch.ModeEdits, args: map[string]any{"patchText": update},
			text: "Applied patch: 1 change\nApplied: main.go hunk 1", main: newMain},
		{name: "input alias", mode: applypatch.ModeFullAuto, args: map[string]any{"input": update},
			text: "Applied patch: 1 change\nApplied: main.go hunk 1", main: newMain},
		{name: "payload rejected", mode: applypatch.ModeEdits,
			args:    map[string]any{"patchText": "*** Begin Patch\n*** Update File: main.go\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n"},
			text:    `Error: invalid patch: line 4 "+\tprintln(\"hello\")": the last line of the patch must be '*** End Patch'…`,
			isError: true, main: baseMain},
		{name: "arguments rejected", mode: applypatch.ModeEdits, args: map[string]any{"patchText": 7},
			text:    `Error: invalid arguments: "patchText" must be a string holding the whole patch, not a number`,
			isError: true, main: baseMain},
		{name: "forbidden path", mode: applypatch.ModeFullAuto,
			args:    map[string]any{"patchText": "*** Begin Patch\n*** Add File: .ssh/authorized_keys\n+ssh-ed25519 AAAA\n" + update[len("*** Begin Patch\n"):]},
			text:    "Error: .ssh/authorized_keys: the path is…",
			isError: true, main: baseMain},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, fsys := connect(t, Config{Mode: tt.mode}, nil, "")
			text, res := call(t, cs, tt.args)
			want, prefix := strings.CutSuffix(tt.text, "…")
			if prefix && !strings.HasPrefix(text, want) || !prefix && text != want {
				t.Errorf("text:\n%s\nwant:\n%s", text, tt.text)
			}
			if res.IsError != tt.isError {
				t.Errorf("isError = %v", res.IsError)
			}
			if got := readFile(t, fsys, "/ws/main.go"); got != tt.main {
				t.Errorf("main.go = %q, want %q", got, tt.main)
			}
			if _, err := fsys.Stat("/ws/.ssh/authorized_keys"); (err == nil) != tt.sshKeys {
				t.Errorf(".ssh/authorized_keys exists: %v", err == nil)
			}
			status := map[string]any{}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &status)
			if wantStatus := map[bool]string{false: "applied", true: "error"}[tt.isError]; status["status"] != wantStatus {
				t.Errorf("structured content = %s, want status %s", b, wantStatus)
			}
		})
	}
}

// TestFlags checks the command line.
func TestFlags(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-C", dir, "-mode", "edits", "-fallback", "full-auto", "-no-history"}, io.Discard, io.Discard)
	if err != nil || cfg.Workspace != dir || cfg.Mode != applypatch.ModeEdits || cfg.Fallback != applypatch.ModeFullAuto || cfg.History != nil {
		t.Errorf("parseFlags = %+v, %v", cfg, err)
	}
	cfg, err = parseFlags(nil, io.Discard, io.Discard)
	if err != nil || cfg.Mode != applypatch.ModeAsk || cfg.Fallback != applypatch.ModeAsk || cfg.History == nil {
		t.Errorf("defaults = %+v, %v; want ask, refusing clients that cannot elicit, with a history", cfg, err)
	}
	for _, args := range [][]string{{"-mode", "yolo"}, {"-fallback", "ask"}, {"-C", dir + "/missing"}} {
		if _, err := parseFlags(args, io.Discard, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) succeeded", args)
		}
	}
}

// TestOSWorkspace runs the server as main configures it, on a real directory confined by
// os.Root: a patch applies, one through a link that leads out of the workspace is refused
// with nothing written outside, and undo_patch reverts the first through the history
// under the user's state directory, outside the workspace (F1, F2, U5).
func TestOSWorkspace(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(baseMain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	cs := connectOS(t, dir)

	if text, _ := call(t, cs, map[string]any{"patchText": update}); text != "Applied patch: 1 change\nApplied: main.go hunk 1" {
		t.Errorf("update: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(b) != newMain {
		t.Errorf("main.go = %q", b)
	}
	text, res := call(t, cs, map[string]any{"patchText": "*** Begin Patch\n*** Add File: out/escape.txt\n+x\n*** End Patch"})
	if !res.IsError || strings.Contains(text, outside) {
		t.Errorf("escape through a link: %q (it must be refused and not name the host path)", text)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Error("the patch wrote outside the workspace")
	}
	if text, res := callTool(t, cs, undoName, nil); res.IsError || !strings.Contains(text, "\nUndid the change ") {
		t.Errorf("undo: %q", text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(b) != baseMain {
		t.Errorf("main.go after undo = %q", b)
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "applypatch", "history")); len(entries) != 1 {
		t.Errorf("the history is not kept under $XDG_STATE_HOME/applypatch/history: %v", entries)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "main.go,out" {
		t.Errorf("the workspace holds %v: the history wrote inside it", names)
	}
}

// TestOSWorkspaceMoved: the server serves the directory its -C names at each call. A
// workspace moved away and made again, or replaced by a link to another directory, between
// two calls gets the next call's writes, and the moved one none; a removed one refuses the
// call with nothing written (X17).
func TestOSWorkspaceMoved(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := t.TempDir()
	dir := filepath.Join(base, "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := connectOS(t, dir)
	add := func(name string) (string, *mcp.CallToolResult) {
		return call(t, cs, map[string]any{"patchText": "*** Begin Patch\n*** Add File: " + name + "\n+x\n*** End Patch"})
	}
	if text, res := add("first.txt"); res.IsError {
		t.Fatalf("first call: %q", text)
	}
	for i, replace := range []func(old string){
		func(old string) { os.Mkdir(dir, 0o755) },
		func(old string) { os.Mkdir(dir+".other", 0o755); os.Symlink("ws.other", dir) },
	} {
		old := fmt.Sprintf("%s.old%d", dir, i)
		if err := os.Rename(dir, old); err != nil {
			t.Fatal(err)
		}
		replace(old)
		name := fmt.Sprintf("next%d.txt", i)
		if text, res := add(name); res.IsError {
			t.Fatalf("after the workspace was replaced (%d): %q", i, text)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s is not in the workspace -C names now: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(old, name)); err == nil {
			t.Errorf("%s was written in the directory the workspace was before", name)
		}
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	text, res := add("gone.txt")
	if !res.IsError || !strings.Contains(text, "the workspace directory cannot be opened") || strings.Contains(text, base) {
		t.Errorf("with the workspace removed: %q", text)
	}
	if matches, _ := filepath.Glob(filepath.Join(base, "*", "gone.txt")); len(matches) > 0 {
		t.Errorf("written with the workspace removed: %v", matches)
	}
}

// TestRefusalNamesFlag checks that a refusal a server flag would lift names the flag, and
// that the flag lets the patch through (F4).
func TestRefusalNamesFlag(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch"
	cs, fsys := connect(t, Config{Mode: applypatch.ModeEdits}, nil, "")
	text, res := call(t, cs, map[string]any{"patchText": patch})
	if !res.IsError || !strings.Contains(text, "protected paths need the server flag -allow-protected") {
		t.Errorf("refusal = %q", text)
	}
	if _, err := fsys.Stat("/ws/.git/hooks/pre-commit"); err == nil {
		t.Error("the refused patch was written")
	}
	cs, fsys = connect(t, Config{Mode: applypatch.ModeEdits, AllowProtected: true}, nil, "")
	if text, _ := call(t, cs, map[string]any{"patchText": patch}); text != "Applied patch: 1 change\nApplied: .git/hooks/pre-commit" {
		t.Errorf("with -allow-protected: %q", text)
	}
	if got := readFile(t, fsys, "/ws/.git/hooks/pre-commit"); got != "#!/bin/sh\n" {
		t.Errorf("pre-commit = %q", got)
	}
	if !strings.Contains(errCannotAsk.Error(), "-fallback edits") || !strings.Contains(errCannotAsk.Error(), "-mode edits") {
		t.Errorf("the refusal of a client that cannot ask names no flag: %q", errCannotAsk)
	}
}

// TestOutsideProtectedNeedsBothFlags: F2, F4. A protected path that lies outside the
// workspace, such as ../.git/hooks/x, needs -allow-outside as well as -allow-protected.
func TestOutsideProtectedNeedsBothFlags(t *testing.T) {
	paths := []applypatch.ClassifiedPath{{Path: "../.git/hooks/pre-commit", Kind: applypatch.OpAdd, Class: applypatch.ClassProtected, Outside: true}}
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{AllowProtected: true}, "outside paths need the server flag -allow-outside"},
		{Config{AllowOutside: true}, "protected paths need the server flag -allow-protected"},
		{Config{}, "outside paths need the server flag -allow-outside and protected paths need the server flag -allow-protected"},
		{Config{AllowOutside: true, AllowProtected: true}, ""},
	}
	for _, tt := range tests {
		s := &server{cfg: tt.cfg}
		err := s.authorizer().Authorize(context.Background(), applypatch.ModeEdits, paths)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%+v: %v, want allowed", tt.cfg, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

// TestHelpAndVersionOnStdout: --help and --version print on standard output and stop
// without an error to report, as every applypatch command does; a bad flag is told on
// standard error.
func TestHelpAndVersionOnStdout(t *testing.T) {
	for _, tc := range []struct {
		arg, want string
		err       error
	}{
		{"--help", "usage: applypatch-mcp", flag.ErrHelp},
		{"-h", "usage: applypatch-mcp", flag.ErrHelp},
		{"--version", "applypatch-mcp ", errVersion},
	} {
		var stdout, stderr strings.Builder
		_, err := parseFlags([]string{tc.arg}, &stdout, &stderr)
		if !errors.Is(err, tc.err) || !strings.HasPrefix(stdout.String(), tc.want) || stderr.Len() > 0 {
			t.Errorf("%s: err %v, stdout %q, stderr %q", tc.arg, err, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	if _, err := parseFlags([]string{"--frobnicate"}, &stdout, &stderr); err == nil || stdout.Len() > 0 || stderr.Len() == 0 {
		t.Errorf("a bad flag: err %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}
