package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/afero"
)

// twoFiles adds notes.txt and updates main.go.
var twoFiles = "*** Begin Patch\n*** Add File: notes.txt\n+remember\n" + update[len("*** Begin Patch\n"):]

// newHistory returns a history in memory, apart from the workspace and the real home.
func newHistory() *applypatch.History {
	return applypatch.NewHistory(afero.NewMemMapFs(), "/history")
}

// newest returns the newest entry of h.
func newest(t *testing.T, h *applypatch.History) applypatch.HistoryEntry {
	t.Helper()
	list, err := h.Entries()
	if err != nil || len(list) == 0 {
		t.Fatalf("history entries = %v, %v", list, err)
	}
	return list[0]
}

// named is how a result names an entry: "the change ID of TIME (PATHS)".
func named(e applypatch.HistoryEntry) string {
	return "the change " + e.ID + " of " + e.Time.Local().Format("2006-01-02 15:04:05") + " (" + strings.Join(e.Paths, ", ") + ")"
}

// TestUndoPatch checks that undo_patch reverts what apply_patch wrote, byte for byte,
// deleting the file it added, and that the result names the change and its files (U5).
func TestUndoPatch(t *testing.T) {
	h := newHistory()
	cs, fsys := connect(t, Config{Mode: applypatch.ModeEdits, History: h}, nil, "")
	if text, res := call(t, cs, map[string]any{"patchText": twoFiles}); res.IsError {
		t.Fatalf("apply: %s", text)
	}
	e := newest(t, h)
	text, res := callTool(t, cs, undoName, map[string]any{})
	want := "Applied patch: 2 changes\nApplied: main.go hunk 1\nApplied: notes.txt\nUndid " + named(e) + "; redo applies it again."
	if res.IsError || text != want {
		t.Errorf("undo (isError %v):\n%s\nwant:\n%s", res.IsError, text, want)
	}
	if !strings.Contains(text, "(notes.txt, main.go)") {
		t.Errorf("the result does not name the change's files: %q", text)
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != baseMain {
		t.Errorf("main.go = %q, want the bytes it held before", got)
	}
	if _, err := fsys.Stat("/ws/notes.txt"); err == nil {
		t.Error("notes.txt, which the change added, is still there")
	}
	if !newest(t, h).Undone {
		t.Error("the history does not list the change as undone")
	}
}

// TestUndoNothing checks that undo_patch and redo with nothing to revert, and arguments it
// does not take, are error results saying so, with nothing written.
func TestUndoNothing(t *testing.T) {
	cs, fsys := connect(t, Config{Mode: applypatch.ModeEdits, History: newHistory()}, nil, "")
	for _, tt := range []struct {
		args any
		want error
	}{
		{nil, applypatch.ErrNothingToUndo},
		{map[string]any{"redo": true}, applypatch.ErrNothingToRedo},
		{map[string]any{"redo": "yes"}, errUndoArgs},
		{map[string]any{"patchText": update}, errUndoArgs},
	} {
		text, res := callTool(t, cs, undoName, tt.args)
		if !res.IsError || text != "Error: "+tt.want.Error() {
			t.Errorf("%v: text (isError %v) = %q, want %q", tt.args, res.IsError, text, "Error: "+tt.want.Error())
		}
	}
	if !strings.Contains(applypatch.ErrNothingToUndo.Error(), "there is nothing to undo") {
		t.Errorf("ErrNothingToUndo = %q", applypatch.ErrNothingToUndo)
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != baseMain {
		t.Errorf("main.go = %q", got)
	}
}

// TestUndoRefusesEdited checks that a hand edit of the lines the change wrote refuses the
// whole undo, naming the file, with the file untouched and the change still undoable,
// while an edit elsewhere in the file is kept by the undo (U3).
func TestUndoRefusesEdited(t *testing.T) {
	h := newHistory()
	cs, fsys := connect(t, Config{Mode: applypatch.ModeEdits, History: h}, nil, "")
	call(t, cs, map[string]any{"patchText": update})
	e := newest(t, h)
	edited := strings.Replace(newMain, `println("hello")`, `println("hello, edited by hand")`, 1)
	afero.WriteFile(fsys, "/ws/main.go", []byte(edited), 0o644)
	text, res := callTool(t, cs, undoName, map[string]any{})
	for _, want := range []string{"Error: cannot undo " + named(e) + "; nothing was written:\n",
		"\n- main.go: hunk 1: the lines the change left there were edited since", "hello, edited by hand"} {
		if !res.IsError || !strings.Contains(text, want) {
			t.Errorf("undo (isError %v):\n%s\nlacks %q", res.IsError, text, want)
		}
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != edited {
		t.Errorf("main.go = %q, want the hand edit untouched", got)
	}
	if newest(t, h).Undone {
		t.Error("the refused undo marked the change undone")
	}

	elsewhere := "// edited by hand\n" + newMain
	afero.WriteFile(fsys, "/ws/main.go", []byte(elsewhere), 0o644)
	if text, res := callTool(t, cs, undoName, nil); res.IsError {
		t.Errorf("undo with an edit elsewhere: %s", text)
	}
	if got, want := readFile(t, fsys, "/ws/main.go"), "// edited by hand\n"+baseMain; got != want {
		t.Errorf("main.go = %q, want %q: the edit kept, the change reverted", got, want)
	}
}

// TestRedoPatch checks that redo re-applies the change the last undo reverted, and that
// the change can then be undone again (U4).
func TestRedoPatch(t *testing.T) {
	h := newHistory()
	cs, fsys := connect(t, Config{Mode: applypatch.ModeEdits, History: h}, nil, "")
	call(t, cs, map[string]any{"patchText": update})
	e := newest(t, h)
	callTool(t, cs, undoName, nil)
	text, res := callTool(t, cs, undoName, map[string]any{"redo": true})
	if want := "Applied patch: 1 change\nApplied: main.go hunk 1\nRedid " + named(e) + "."; res.IsError || text != want {
		t.Errorf("redo (isError %v):\n%s\nwant:\n%s", res.IsError, text, want)
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != newMain {
		t.Errorf("main.go = %q, want the change applied again", got)
	}
	if newest(t, h).Undone {
		t.Error("the history lists the redone change as undone")
	}
	if text, _ := callTool(t, cs, undoName, map[string]any{"redo": true}); text != "Error: "+applypatch.ErrNothingToRedo.Error() {
		t.Errorf("a second redo: %q", text)
	}
	if text, res := callTool(t, cs, undoName, map[string]any{"redo": false}); res.IsError || readFile(t, fsys, "/ws/main.go") != baseMain {
		t.Errorf("undo after redo: %s", text)
	}
}

// TestUndoListed checks that undo_patch is listed with its title, annotations and an input
// schema that requires nothing when the server keeps a history, and is absent otherwise.
func TestUndoListed(t *testing.T) {
	for _, h := range []*applypatch.History{nil, newHistory()} {
		cs, _ := connect(t, Config{Mode: applypatch.ModeEdits, History: h}, nil, "")
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if h == nil {
			if strings.Join(names, ",") != "apply_patch" {
				t.Errorf("without a history, tools = %v, want apply_patch alone", names)
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: undoName}); err == nil {
				t.Error("without a history, undo_patch can be called")
			}
			continue
		}
		if strings.Join(names, ",") != "apply_patch,undo_patch" {
			t.Fatalf("with a history, tools = %v", names)
		}
		tool := list.Tools[1]
		a := tool.Annotations
		if tool.Title != "Undo patch" || a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("undo_patch: title %q, annotations %+v", tool.Title, a)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if json.Unmarshal(schema, &s) != nil || s.Type != "object" || len(s.Required) > 0 || s.Properties["redo"] == nil {
			t.Errorf("undo_patch input schema = %s", schema)
		}
		for _, want := range []string{"newest change applied through this server", "never overwritten", "refuses the whole undo", "redo"} {
			if !strings.Contains(tool.Description, want) {
				t.Errorf("undo_patch description lacks %q:\n%s", want, tool.Description)
			}
		}
	}
}

// TestUndoElicitation checks the ask-mode undo: the person is shown the change the undo
// reverts, and only apply writes; a file changed while the person looks is not
// overwritten; a client that cannot ask is refused (S2, X2, U5).
func TestUndoElicitation(t *testing.T) {
	edited := "// edited meanwhile\n" + newMain
	tests := []struct {
		name    string
		answer  *mcp.ElicitResult
		meddle  bool // edit main.go while the person looks
		another bool // commit another change, to another file, while the person looks
		text    string
		isError bool
		main    string
		undone  bool
	}{
		{name: "apply", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}},
			text: "Applied patch: 1 change\nApplied: main.go hunk 1\nUndid …", main: baseMain, undone: true},
		{name: "reject", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "reject"}},
			text: "Error: Patch rejected", isError: true, main: newMain},
		{name: "decline", answer: &mcp.ElicitResult{Action: "decline"}, text: "Error: Patch rejected", isError: true, main: newMain},
		{name: "empty feedback", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "feedback"}},
			text: "Error: " + errEmptyUndoFeedback.Error(), isError: true, main: newMain},
		{name: "changed meanwhile", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}},
			meddle: true, text: "Error: file changed during review: main.go;…", isError: true, main: edited},
		{name: "another change meanwhile", answer: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}},
			another: true, text: "Error: " + errStaleUndo.Error(), isError: true, main: newMain},
	}
	for _, protocol := range protocols {
		for _, tt := range tests {
			t.Run(tt.name+"/"+protocol, func(t *testing.T) {
				h, fsys := newHistory(), afero.NewMemMapFs()
				var asked []string
				cs, _ := connect(t, Config{FS: fsys, Mode: applypatch.ModeAsk, History: h}, &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						if len(asked) == 1 { // the patch itself
							return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}}, nil
						}
						if tt.meddle {
							afero.WriteFile(fsys, "/ws/main.go", []byte(edited), 0o644)
						}
						if tt.another { // the undo asked about is no longer the newest change
							applypatch.Apply(context.Background(), fsys, "*** Begin Patch\n*** Add File: other.txt\n+x\n*** End Patch",
								&applypatch.Options{Workspace: "/ws", History: h})
						}
						return tt.answer, nil
					}}, protocol)
				if text, _ := call(t, cs, map[string]any{"patchText": update}); text != "Applied patch: 1 change\nApplied: main.go hunk 1" {
					t.Fatalf("apply: %q", text)
				}
				e := newest(t, h)
				text, res := callTool(t, cs, undoName, nil)
				want, prefix := strings.CutSuffix(tt.text, "…")
				if res.IsError != tt.isError || prefix && !strings.HasPrefix(text, want) || !prefix && text != want {
					t.Errorf("undo (isError %v):\n%s\nwant (isError %v):\n%s", res.IsError, text, tt.isError, tt.text)
				}
				if len(asked) != 2 {
					t.Fatalf("the person was asked %d times", len(asked))
				}
				for _, want := range []string{"The agent wants to undo this change (Apply 1 change in 1 file).\n\nIt reverts " + named(e) + ".\n\n",
					"ApplyPatch · 1 file · 1/1 change · +1 −1", "-\tprintln(\"hello\")\n+\tprintln(\"hi\")\n"} {
					if !strings.Contains(asked[1], want) {
						t.Errorf("the person was shown:\n%s\nwhich lacks %q", asked[1], want)
					}
				}
				if got := readFile(t, fsys, "/ws/main.go"); got != tt.main {
					t.Errorf("main.go = %q, want %q", got, tt.main)
				}
				if e := newest(t, h); e.Undone != tt.undone && !tt.another {
					t.Errorf("undone = %v, want %v", !tt.undone, tt.undone)
				}
			})
		}
	}

	h := newHistory()
	cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk, Fallback: applypatch.ModeEdits, History: h}, nil, "")
	call(t, cs, map[string]any{"patchText": update})
	if text, _ := callTool(t, cs, undoName, nil); !strings.Contains(text, "\nUndid ") || readFile(t, fsys, "/ws/main.go") != baseMain {
		t.Errorf("fallback edits, a client that cannot ask: %q", text)
	}
	cs, fsys = connect(t, Config{Mode: applypatch.ModeAsk, Fallback: applypatch.ModeAsk, History: h}, nil, "")
	if text, _ := callTool(t, cs, undoName, map[string]any{"redo": true}); text != "Error: "+errCannotAsk.Error() || readFile(t, fsys, "/ws/main.go") != baseMain {
		t.Errorf("fallback refuse, a client that cannot ask: %q", text)
	}
}

// TestUndoState checks that an ask-mode answer needs the state the server sealed with its
// question: an answer with a forged or missing state is refused with nothing written.
func TestUndoState(t *testing.T) {
	h := newHistory()
	cs, fsys := connect(t, Config{Mode: applypatch.ModeAsk, History: h}, &mcp.ClientOptions{ElicitationHandler: answer("accept", map[string]any{"decision": "apply"})}, "")
	call(t, cs, map[string]any{"patchText": update})
	for name, state := range map[string]string{"forged": "e30.AAAA", "empty": ""} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: undoName,
			InputResponses: mcp.InputResponseMap{reviewKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "apply"}}},
			RequestState:   state})
		if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != "Error: "+errStaleUndo.Error() {
			t.Errorf("%s state: %+v, %v", name, res, err)
		}
	}
	if got := readFile(t, fsys, "/ws/main.go"); got != newMain || newest(t, h).Undone {
		t.Errorf("main.go = %q after refused answers", got)
	}
}
