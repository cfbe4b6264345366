package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// TestParseOperation checks that a Responses API operation becomes the Patch its
// enveloped twin parses to (H4), with line numbers counted in the diff.
func TestParseOperation(t *testing.T) {
	tests := []struct {
		name, kind, path, diff string
		payload                string // the equivalent enveloped payload
		hunkLines              []int  // where each hunk starts in diff
	}{
		{name: "create", kind: "create_file", path: "docs/a.md", diff: "+# A\n+\n+text\n",
			payload: "*** Begin Patch\n*** Add File: docs/a.md\n+# A\n+\n+text\n*** End Patch"},
		{name: "create empty", kind: "create_file", path: "empty.txt", diff: "",
			payload: "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch"},
		{name: "update with @@", kind: "update_file", path: "a.go", diff: "@@ func main() {\n-\tx()\n+\ty()\n@@ 40\n-a\n+b\n",
			payload:   "*** Begin Patch\n*** Update File: a.go\n@@ func main() {\n-\tx()\n+\ty()\n@@ 40\n-a\n+b\n*** End Patch",
			hunkLines: []int{1, 4}},
		{name: "update without @@", kind: "update_file", path: "a.go", diff: " keep\n-old\n+new\n",
			payload:   "*** Begin Patch\n*** Update File: a.go\n keep\n-old\n+new\n*** End Patch",
			hunkLines: []int{1}},
		{name: "update at end of file", kind: "update_file", path: "a.go", diff: "@@\n last\n+appended\n*** End of File",
			payload:   "*** Begin Patch\n*** Update File: a.go\n@@\n last\n+appended\n*** End of File\n*** End Patch",
			hunkLines: []int{1}},
		{name: "update CRLF", kind: "update_file", path: "a.go", diff: "@@\r\n-old\r\n+new\r\n",
			payload:   "*** Begin Patch\n*** Update File: a.go\n@@\n-old\n+new\n*** End Patch",
			hunkLines: []int{1}},
		{name: "update keeps a trailing empty context line", kind: "update_file", path: "a.go", diff: "-old\n+new\n\n",
			payload:   "*** Begin Patch\n*** Update File: a.go\n-old\n+new\n\n*** End Patch",
			hunkLines: []int{1}},
		{name: "update with an indented marker as context", kind: "update_file", path: "a.md", diff: " *** End Patch\n-x\n+y",
			payload:   "*** Begin Patch\n*** Update File: a.md\n *** End Patch\n-x\n+y\n*** End Patch",
			hunkLines: []int{1}},
		{name: "delete", kind: "delete_file", path: " old.txt ",
			payload: "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOperation(tt.kind, tt.path, tt.diff)
			if err != nil {
				t.Fatalf("ParseOperation: %v", err)
			}
			want, err := Parse(tt.payload)
			if err != nil {
				t.Fatalf("Parse of the twin payload: %v", err)
			}
			want.Ops[0].Line = 0
			for i, l := range tt.hunkLines {
				want.Ops[0].Hunks[i].Line = l
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("patch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseOperationErrors checks that bad operations are parse errors pointing into the
// diff, and that no diff can smuggle in a second operation (H4, P11, P12).
func TestParseOperationErrors(t *testing.T) {
	tests := []struct {
		name, kind, path, diff string
		msg                    string // the exact error message
	}{
		{name: "bad kind", kind: "rename_file", path: "a", diff: "",
			msg: `invalid patch: unknown operation type "rename_file"; use "create_file", "update_file" or "delete_file"`},
		{name: "no path", kind: "create_file", path: " ", diff: "+x",
			msg: "invalid patch: the operation names no path; give the file's path, relative to the workspace"},
		{name: "path on two lines", kind: "delete_file", path: "a\n*** Delete File: b",
			msg: "invalid patch: the path spans more than one line; give one file's path"},
		{name: "delete with diff", kind: "delete_file", path: "a", diff: "-x\n",
			msg: "invalid patch: a delete_file operation has no diff; send it with an empty diff"},
		{name: "update without hunks", kind: "update_file", path: "a", diff: "\n",
			msg: "invalid patch: the update_file diff is empty; send '@@' hunks with ' ' context, '-' removed and '+' added lines"},
		{name: "create line without +", kind: "create_file", path: "a", diff: "+one\ntwo\n",
			msg: `invalid patch: line 2 "two": every line of an Add File section must start with '+' (a lone '+' is an empty line)`},
		{name: "update bad line", kind: "update_file", path: "a", diff: "@@\n-x\n+y\n!z",
			msg: `invalid patch: line 4 "!z": every line of an Update hunk must start with ' ' (context), '-' (removed) or '+' (added)`},
		{name: "update only context", kind: "update_file", path: "a", diff: "@@\n a\n b",
			msg: "invalid patch: every hunk of this Update is context only, so it changes nothing; add '-'/'+' lines or remove the section"},
		{name: "second operation in an update", kind: "update_file", path: "a", diff: "-x\n+y\n*** Delete File: b",
			msg: `invalid patch: line 3 "*** Delete File: b": the diff holds only the file's own lines, not patch headers; send one operation per file, with its path in "path"`},
		{name: "move in an update", kind: "update_file", path: "a", diff: "*** Move to: b\n-x\n+y",
			msg: `invalid patch: line 1 "*** Move to: b": the diff holds only the file's own lines, not patch headers; send one operation per file, with its path in "path"`},
		{name: "envelope end in an update", kind: "update_file", path: "a", diff: "-x\n+y\n*** End Patch\n*** Begin Patch\n*** Add File: b\n+z",
			msg: `invalid patch: line 3 "*** End Patch": the diff holds only the file's own lines, not patch headers; send one operation per file, with its path in "path"`},
		{name: "second operation in a create", kind: "create_file", path: "a", diff: "+x\n  *** Add File: b\n+z",
			msg: `invalid patch: line 2 "  *** Add File: b": the diff holds only the file's own lines, not patch headers; send one operation per file, with its path in "path"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseOperation(tt.kind, tt.path, tt.diff)
			if err == nil {
				t.Fatalf("ParseOperation = %+v, want error %q", p, tt.msg)
			}
			if err.Error() != tt.msg {
				t.Errorf("message:\n got %s\nwant %s", err, tt.msg)
			}
			if !errors.As(err, new(*ParseError)) {
				t.Errorf("%T is not a *ParseError", err)
			}
		})
	}
}

// FuzzParseOperation checks that no operation panics and that a parsed one is exactly
// one operation on the path given (H4).
func FuzzParseOperation(f *testing.F) {
	f.Add("update_file", "a.go", "@@ x\n-a\n+b\n")
	f.Add("create_file", "n.txt", "+a\n+*** Add File: b\n")
	f.Add("update_file", "a", "-x\n+y\n*** End Patch\n*** Add File: b\n+z")
	f.Add("delete_file", "a", "")
	f.Fuzz(func(t *testing.T, kind, path, diff string) {
		p, err := parseOperation(kind, path, diff)
		if err != nil {
			return
		}
		want := map[string]OpKind{opCreateFile: OpAdd, opUpdateFile: OpUpdate, opDeleteFile: OpDelete}[kind]
		if len(p.Ops) != 1 || p.Ops[0].Kind != want || p.Ops[0].Path != strings.TrimSpace(path) || p.Ops[0].MoveTo != "" {
			t.Fatalf("ParseOperation(%q, %q, %q) = %+v", kind, path, diff, p.Ops)
		}
	})
}

// TestCallResponses runs apply_patch_call items through the tool (H4): the same pipeline,
// answered with an apply_patch_call_output.
func TestCallResponses(t *testing.T) {
	item := func(op responsesOperation) json.RawMessage {
		b, _ := json.Marshal(responsesCall{Type: "apply_patch_call", ID: "apc_1", CallID: "call_7", Status: "completed", Operation: op})
		return b
	}
	tests := []struct {
		name   string
		item   json.RawMessage
		status string
		output string // exact, or a prefix when it ends in "…"
		after  map[string]string
	}{
		{name: "update", item: item(responsesOperation{Type: "update_file", Path: "main.go", Diff: "@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n"}),
			status: "completed", output: "Applied patch: 1 change\nApplied: main.go hunk 1",
			after: map[string]string{"/ws/main.go": strings.Replace(toolBase, `"hi"`, `"hello"`, 1)}},
		{name: "create", item: item(responsesOperation{Type: "create_file", Path: "lib/x.go", Diff: "+package lib\n"}),
			status: "completed", output: "Applied patch: 1 change\nApplied: lib/x.go",
			after: map[string]string{"/ws/main.go": toolBase, "/ws/lib/x.go": "package lib\n"}},
		{name: "delete", item: item(responsesOperation{Type: "delete_file", Path: "main.go"}),
			status: "completed", output: "Applied patch: 1 change\nApplied: main.go", after: map[string]string{}},
		{name: "no match", item: item(responsesOperation{Type: "update_file", Path: "main.go", Diff: "-\tprintln(\"bye\")\n+x\n"}),
			status: "failed", output: "Error: main.go: hunk 1 (payload line 1)…"},
		{name: "bad kind", item: item(responsesOperation{Type: "chmod_file", Path: "main.go"}),
			status: "failed", output: `Error: invalid patch: unknown operation type "chmod_file"…`},
		{name: "not an item", item: json.RawMessage(`{"type": "function_call", "call_id": "call_7"}`),
			status: "failed", output: `Error: invalid arguments: not an apply_patch_call item: the item has type "function_call"…`},
		{name: "not JSON", item: json.RawMessage(`{`),
			status: "failed", output: `Error: invalid arguments: not an apply_patch_call item: …`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFiles(t, map[string]string{"main.go": toolBase})
			before := contents(t, fsys)
			tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeEdits}}
			out, res, err := callDecoded(t, tool, tt.item)
			if out.Type != "apply_patch_call_output" || out.Status != tt.status || out.Output != res.Text() {
				t.Errorf("output = %+v, want status %s and the result's text", out, tt.status)
			}
			if tt.name != "not JSON" && out.CallID != "call_7" {
				t.Errorf("call_id = %q, want it echoed", out.CallID)
			}
			if want, prefix := strings.CutSuffix(tt.output, "…"); prefix && !strings.HasPrefix(out.Output, want) || !prefix && out.Output != want {
				t.Errorf("output:\n%s\nwant:\n%s", out.Output, tt.output)
			}
			if (err != nil) != (tt.status == "failed") {
				t.Errorf("err = %v", err)
			}
			checkFiles(t, fsys, before, tt.after)
		})
	}
}

// TestCallResponsesLimit checks that the payload limit bounds a diff too (T5).
func TestCallResponsesLimit(t *testing.T) {
	fsys := afero.NewMemMapFs()
	tool := &Tool{FS: fsys, Options: Options{Mode: ModeEdits, Limits: Limits{Payload: 10}}}
	b, _ := json.Marshal(responsesCall{CallID: "c", Operation: responsesOperation{Type: "create_file", Path: "a", Diff: "+0123456789\n"}})
	out, _, err := callDecoded(t, tool, b)
	if !errors.As(err, new(*ParseError)) || !strings.Contains(err.Error(), "over the limit of 10") || out.Status != "failed" {
		t.Fatalf("CallResponses = %+v, %v; want a limit error", out, err)
	}
	if _, err := fsys.Stat("/a"); err == nil {
		t.Error("a was written")
	}
}

// TestCallResponsesAsk checks that a Responses API call is reviewed in ask mode like any
// other call (H4, F4).
func TestCallResponsesAsk(t *testing.T) {
	fsys := memFiles(t, map[string]string{"main.go": toolBase})
	var shown string
	tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeAsk}, Reviewer: ReviewerFunc(func(ctx context.Context, s *Session) error {
		shown = s.View().Header
		return s.Reject()
	})}
	b, _ := json.Marshal(responsesCall{CallID: "c", Operation: responsesOperation{Type: "delete_file", Path: "main.go"}})
	out, res, _ := callDecoded(t, tool, b)
	if shown == "" || out.Status != "failed" || out.Output != "Error: Patch rejected" || !res.Reviewed {
		t.Errorf("reviewer saw %q; output %+v", shown, out)
	}
	if got := contents(t, fsys)["/ws/main.go"]; got != toolBase {
		t.Errorf("main.go = %q", got)
	}
}

// TestCallResponsesJSON checks that CallResponses returns the output item as the JSON a
// host sends back: the four fields the Responses API reads, nothing else (H4).
func TestCallResponsesJSON(t *testing.T) {
	tool := &Tool{FS: afero.NewMemMapFs(), Options: Options{Mode: ModeEdits}}
	b, _ := json.Marshal(responsesCall{CallID: "c1", Operation: responsesOperation{Type: "create_file", Path: "a", Diff: "+x\n"}})
	out, res, err := tool.CallResponses(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	var item map[string]string
	if err := json.Unmarshal(out, &item); err != nil {
		t.Fatalf("output %s is not a JSON object of strings: %v", out, err)
	}
	want := map[string]string{"type": "apply_patch_call_output", "call_id": "c1", "status": "completed", "output": res.Text()}
	if !maps.Equal(item, want) {
		t.Errorf("output item = %v, want %v", item, want)
	}
}

// callDecoded is CallResponses with its apply_patch_call_output decoded.
func callDecoded(t *testing.T, tool *Tool, item json.RawMessage) (*responsesOutput, *Result, error) {
	t.Helper()
	raw, res, err := tool.CallResponses(context.Background(), item)
	var out responsesOutput
	if e := json.Unmarshal(raw, &out); e != nil {
		t.Fatalf("output %s: %v", raw, e)
	}
	return &out, res, err
}
