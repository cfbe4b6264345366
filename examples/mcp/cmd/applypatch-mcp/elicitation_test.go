package main

import (
	"context"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/afero"
)

// answer is a scripted person: the elicitation result it gives.
func answer(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}
}

// TestElicitation checks the ask-mode round trip: the person sees the diff and applies,
// rejects, or sends feedback; only apply writes (F4, S2, S4).
func TestElicitation(t *testing.T) {
	tests := []struct {
		name    string
		action  string
		content map[string]any
		text    string
		isError bool
		main    string
	}{
		{name: "apply", action: "accept", content: map[string]any{"decision": "apply"},
			text: "Applied patch: 1 change\nApplied: main.go hunk 1", main: newMain},
		{name: "apply with a comment", action: "accept", content: map[string]any{"decision": "apply", "feedback": "also add a test"},
			text: "Applied patch: 1 change\nFeedback (whole patch): also add a test\nApplied: main.go hunk 1", main: newMain},
		{name: "decline", action: "decline", text: "Error: Patch rejected", isError: true, main: baseMain},
		{name: "reject", action: "accept", content: map[string]any{"decision": "reject"},
			text: "Error: Patch rejected", isError: true, main: baseMain},
		{name: "feedback", action: "accept", content: map[string]any{"decision": "feedback", "feedback": "greet by name instead"},
			text: "Patch revision requested\nFeedback (whole patch): greet by name instead\nRejected: main.go hunk 1", main: baseMain},
		{name: "cancel", action: "cancel", text: "Error: Patch review aborted", isError: true, main: baseMain},
	}
	for _, protocol := range protocols {
		for _, tt := range tests {
			t.Run(tt.name+"/"+protocol, func(t *testing.T) {
				var asked []string
				ask := answer(tt.action, tt.content)
				cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk}, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						return ask(ctx, req)
					}}, protocol)
				text, res := call(t, cs, map[string]any{"patchText": update})
				if text != tt.text || res.IsError != tt.isError {
					t.Errorf("text (isError %v):\n%s\nwant (isError %v):\n%s", res.IsError, text, tt.isError, tt.text)
				}
				if len(asked) != 1 {
					t.Fatalf("the person was asked %d times", len(asked))
				}
				for _, want := range []string{"(Apply 1 change in 1 file)", "ApplyPatch · 1 file · 1/1 change · +1 −1",
					"*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n"} {
					if !strings.Contains(asked[0], want) {
						t.Errorf("the person was shown:\n%s\nwhich lacks %q", asked[0], want)
					}
				}
				if got := readFile(t, fsys, "/ws/main.go"); got != tt.main {
					t.Errorf("main.go = %q, want %q", got, tt.main)
				}
			})
		}
	}
}

// TestElicitationConflict checks that a file changed while the person was looking is
// not overwritten: the answer was given for bytes that are gone (X2, X7).
func TestElicitationConflict(t *testing.T) {
	fsys := afero.NewMemMapFs()
	edited := strings.Replace(baseMain, "func main", "// edited meanwhile\nfunc main", 1)
	cs, _ := connect(t, Config{FS: fsys, Mode: applypatch.ModeAsk}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			afero.WriteFile(fsys, "/ws/main.go", []byte(edited), 0o644)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}}, nil
		}}, "")
	text, res := call(t, cs, map[string]any{"patchText": update})
	if !res.IsError || !strings.HasPrefix(text, "Error: file changed during review: main.go") {
		t.Errorf("text = %q", text)
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != edited {
		t.Errorf("main.go = %q, want the concurrent edit kept", got)
	}
}

// TestFallback checks ask mode with a client that cannot elicit: refused by default,
// or applied in the configured fallback mode.
func TestFallback(t *testing.T) {
	tests := []struct {
		fallback applypatch.Mode
		text     string
		main     string
	}{
		{fallback: applypatch.ModeAsk, text: "Error: " + errCannotAsk.Error(), main: baseMain},
		{fallback: applypatch.ModeEdits, text: "Applied patch: 1 change\nApplied: main.go hunk 1", main: newMain},
	}
	for _, tt := range tests {
		cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk, Fallback: tt.fallback}, nil, "")
		if text, _ := call(t, cs, map[string]any{"patchText": update}); text != tt.text {
			t.Errorf("fallback %v: text = %q, want %q", tt.fallback, text, tt.text)
		}
		if got := readFile(t, fsys, "/ws/main.go"); got != tt.main {
			t.Errorf("fallback %v: main.go = %q", tt.fallback, got)
		}
	}
}

// TestReviewState checks (R10) that an answer only settles the patch it was asked for, with
// the baselines the server sealed, and only once: a forged state, one for another patch
// or another server, and one used already (an approval replayed after the change was
// undone would apply it again unasked) are refused.
func TestReviewState(t *testing.T) {
	s := &server{key: newKey()}
	want := map[string]applypatch.Snapshot{"main.go": {Exists: true, Mode: 0o644, Hash: "ab"}}
	state := s.seal(update, want)
	got, err := s.open(state, update)
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("open = %v, %v", got, err)
	}
	if _, err := s.open(state, update); err != errUsedAnswer {
		t.Errorf("an answer used twice: open = %v, want errUsedAnswer", err)
	}
	state = s.seal(update, want)
	body, sig, _ := strings.Cut(state, ".")
	for name, bad := range map[string]string{
		"other patch":  "",
		"forged":       body[:len(body)-2] + "AA." + sig,
		"no signature": body,
		"other server": (&server{key: newKey()}).seal(update, want),
	} {
		text := update
		if name == "other patch" {
			bad, text = state, update+"\n"
		}
		if _, err := s.open(bad, text); err != errStaleAnswer {
			t.Errorf("%s: open = %v, want errStaleAnswer", name, err)
		}
	}
}

// TestReviewMessageBudget checks that a huge patch is shown cut to the card's budget,
// saying so, rather than flooding the client (C2).
func TestReviewMessageBudget(t *testing.T) {
	var asked string
	cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}}, nil
		}}, "")
	big := "*** Begin Patch\n*** Add File: big.txt\n" + strings.Repeat("+0123456789abcdef\n", 5000) + "*** End Patch"
	text, _ := call(t, cs, map[string]any{"patchText": big})
	if text != "Applied patch: 1 change\nApplied: big.txt" || len(readFile(t, fsys, "/ws/big.txt")) != 5000*17 {
		t.Errorf("text = %q", text)
	}
	if len(asked) > 50_000+200 || !strings.Contains(asked, "[truncated: ") {
		t.Errorf("the person was shown %d bytes ending %q", len(asked), asked[max(0, len(asked)-80):])
	}
}

// TestElicitationEdgeCases checks answers that settle nothing: feedback without a comment
// is explained, and an answer that is none of the choices is a tool error, not a protocol
// error, for a client that answers through elicitation/create. Nothing is written (S2).
func TestElicitationEdgeCases(t *testing.T) {
	tests := []struct {
		name     string
		protocol string
		content  map[string]any
		text     string
	}{
		{name: "empty feedback", content: map[string]any{"decision": "feedback", "feedback": "  "},
			text: "Error: " + errEmptyFeedback.Error()},
		{name: "empty feedback/2025-11-25", protocol: "2025-11-25", content: map[string]any{"decision": "feedback"},
			text: "Error: " + errEmptyFeedback.Error()},
		{name: "invalid choice/2025-11-25", protocol: "2025-11-25", content: map[string]any{"decision": "maybe"},
			text: "Error: the user's review answer could not be read, so nothing was written; the answer must choose apply, reject or feedback; call apply_patch again to ask again (…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk}, &mcp.ClientOptions{ElicitationHandler: answer("accept", tt.content)}, tt.protocol)
			text, res := call(t, cs, map[string]any{"patchText": update})
			want, prefix := strings.CutSuffix(tt.text, "…")
			if !res.IsError || prefix && !strings.HasPrefix(text, want) || !prefix && text != want {
				t.Errorf("text (isError %v):\n%s\nwant:\n%s", res.IsError, text, tt.text)
			}
			if got := readFile(t, fsys, "/ws/main.go"); got != baseMain {
				t.Errorf("main.go = %q", got)
			}
		})
	}
}
