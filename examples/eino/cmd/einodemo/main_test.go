package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/applypatch/applypatch"
)

// TestAskOnTerminal runs the command's loop on a real directory against a local
// chat-completions server: the model's patch pauses for a review, the answer "1.2" on
// standard input applies hunk 2 only, and the final answer is printed.
func TestAskOnTerminal(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // the journal key of a real filesystem
	dir := t.TempDir()
	const before = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"patchText": "*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n three\n" +
		"@@\n eight\n-nine\n+NINE\n ten\n*** End Patch"})
	replies := []map[string]any{
		{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
			"function": map[string]any{"name": "apply_patch", "arguments": string(args)}}}},
		{"role": "assistant", "content": "Done."},
	}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		io.Copy(io.Discard, r.Body)
		if len(replies) == 0 {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": replies[0], "finish_reason": "stop"}}})
		replies = replies[1:]
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test-key")

	var out strings.Builder
	if err := run(context.Background(), dir, "m", applypatch.ModeAsk, "capitalise", strings.NewReader("1.2\n"), &out); err != nil {
		t.Fatal(err)
	}
	t.Logf("the terminal shows:\n%s", out.String())
	if !strings.Contains(out.String(), "M notes.txt · 2/2") || !strings.HasSuffix(out.String(), "Done.\n") {
		t.Errorf("output = %q", out.String())
	}
	got, _ := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if want := strings.Replace(before, "nine", "NINE", 1); string(got) != want {
		t.Errorf("notes.txt = %q, want %q", got, want)
	}
}
