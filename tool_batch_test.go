package applypatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// batchItem is an apply_patch_call item of the built-in tool.
func batchItem(t *testing.T, id, kind, path, diff string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(responsesCall{Type: "apply_patch_call", CallID: id, Status: "completed",
		Operation: responsesOperation{Type: kind, Path: path, Diff: diff}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRespondOneChange: H7. The calls of one response are one transaction: three files
// apply together, or a failure in one writes none of them; the failing call gets the
// error and the others are told they were not applied because of it.
func TestRespondOneChange(t *testing.T) {
	files := map[string]string{"a.txt": "one\ntwo\n", "b.txt": "three\nfour\n"}
	good := []json.RawMessage{
		batchItem(t, "call_1", "update_file", "a.txt", "@@\n-two\n+TWO\n"),
		batchItem(t, "call_2", "update_file", "b.txt", "@@\n-four\n+FOUR\n"),
		batchItem(t, "call_3", "create_file", "c.txt", "+five\n"),
	}
	tests := []struct {
		name   string
		items  []json.RawMessage
		after  map[string]string
		status []string
		output []string // a prefix of each call's output
	}{
		{name: "all apply", items: good,
			after:  map[string]string{"/ws/a.txt": "one\nTWO\n", "/ws/b.txt": "three\nFOUR\n", "/ws/c.txt": "five\n"},
			status: []string{"completed", "completed", "completed"},
			output: []string{"Applied patch: 3 changes", "Applied patch: 3 changes", "Applied patch: 3 changes"}},
		{name: "one misses", items: []json.RawMessage{good[0], batchItem(t, "call_2", "update_file", "b.txt", "@@\n-six\n+SIX\n"), good[2]},
			status: []string{"failed", "failed", "failed"},
			output: []string{"Error: not applied: the calls of one response apply together or not at all, and call call_2 (b.txt) failed;",
				"Error: b.txt: hunk 1", "Error: not applied: the calls of one response apply together or not at all, and call call_2 (b.txt) failed;"}},
		{name: "one malformed", items: []json.RawMessage{good[0], good[1], batchItem(t, "call_3", "chmod_file", "c.txt", "")},
			status: []string{"failed", "failed", "failed"},
			output: []string{"Error: not applied: the calls of one response apply together or not at all, and call call_3 failed;",
				"Error: not applied:", `Error: invalid patch: unknown operation type "chmod_file"`}},
		{name: "freeform and built-in together", items: []json.RawMessage{good[0],
			json.RawMessage(`{"type": "custom_tool_call", "call_id": "call_4", "name": "apply_patch", "input": "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch\n"}`)},
			after:  map[string]string{"/ws/a.txt": "one\nTWO\n"},
			status: []string{"completed", ""},
			output: []string{"Applied patch: 2 changes", "Applied patch: 2 changes"}},
		{name: "two calls on one file", items: []json.RawMessage{good[0], batchItem(t, "call_5", "delete_file", "a.txt", "")},
			status: []string{"failed", "failed"},
			output: []string{"Error: not applied: the calls of one response apply together or not at all, and call call_5 (a.txt) failed;",
				"Error: invalid patch: the path a.txt is already touched by call call_1 of this response; put all changes to one file in one call"}},
		{name: "a freeform call on a built-in call's file", items: []json.RawMessage{good[0],
			json.RawMessage(`{"type": "custom_tool_call", "call_id": "call_6", "name": "apply_patch", "input": "*** Begin Patch\n*** Update File: ./a.txt\n@@\n-one\n+ONE\n*** End Patch\n"}`)},
			status: []string{"failed", ""},
			output: []string{"Error: not applied: the calls of one response apply together or not at all, and call call_6 (./a.txt) failed;",
				"Error: invalid patch: the path ./a.txt is already touched by call call_1 of this response"}},
		{name: "a Delete then an Add of one path in two calls", items: []json.RawMessage{
			batchItem(t, "call_7", "delete_file", "a.txt", ""), batchItem(t, "call_8", "create_file", "a.txt", "+new\n")},
			after:  map[string]string{"/ws/a.txt": "new\n", "/ws/b.txt": "three\nfour\n"},
			status: []string{"completed", "completed"},
			output: []string{"Applied patch: 1 change", "Applied patch: 1 change"}},
		{name: "two calls with one id", items: []json.RawMessage{good[0], batchItem(t, "call_1", "update_file", "b.txt", "@@\n-four\n+FOUR\n")},
			status: []string{"failed", "failed"},
			output: []string{"Error: not applied: the calls of one response apply together or not at all, and call call_1 (b.txt) failed;",
				`Error: invalid arguments: the call_id "call_1" is the id of call #1 of this response too; each call of a response has its own id`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFiles(t, files)
			before := contents(t, fsys)
			tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeEdits}}
			outs, res, err := tool.Respond(context.Background(), tt.items)
			if len(outs) != len(tt.items) {
				t.Fatalf("%d outputs for %d calls", len(outs), len(tt.items))
			}
			if (err != nil) != (tt.after == nil) || (res.Status == StatusError) != (tt.after == nil) {
				t.Errorf("err = %v, status %s", err, res.Status)
			}
			for i, raw := range outs {
				var out struct{ Type, CallID, Status, Output string }
				if err := json.Unmarshal(raw, &out); err != nil {
					t.Fatal(err)
				}
				var in struct {
					CallID string `json:"call_id"`
				}
				json.Unmarshal(tt.items[i], &in)
				if out.Status != tt.status[i] || !strings.HasPrefix(out.Output, tt.output[i]) {
					t.Errorf("call %d: %s %q, want %s %q…", i+1, out.Status, out.Output, tt.status[i], tt.output[i])
				}
				if !strings.Contains(string(raw), `"call_id":"`+in.CallID+`"`) {
					t.Errorf("call %d: output %s does not answer %s", i+1, raw, in.CallID)
				}
			}
			checkFiles(t, fsys, before, tt.after)
		})
	}
}

// TestRespondEchoesCaller: H7. An apply_patch_call made by a program the model runs says
// so in "caller"; its output carries the same caller back.
func TestRespondEchoesCaller(t *testing.T) {
	tool := &Tool{FS: memFiles(t, nil), Options: Options{Workspace: "/ws", Mode: ModeEdits}}
	item := json.RawMessage(`{"type": "apply_patch_call", "call_id": "call_1", "caller": {"type": "program", "caller_id": "ci_7"},
		"operation": {"type": "create_file", "path": "x.txt", "diff": "+x\n"}}`)
	outs, _, err := tool.Respond(context.Background(), []json.RawMessage{item})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(outs[0]), `"caller":{"type":"program","caller_id":"ci_7"}`) {
		t.Errorf("output %s does not echo the caller", outs[0])
	}
	single, _, _ := tool.CallResponses(context.Background(), json.RawMessage(strings.Replace(string(item), "x.txt", "y.txt", 1)))
	if !strings.Contains(string(single), `"caller":{"type":"program","caller_id":"ci_7"}`) {
		t.Errorf("CallResponses output %s does not echo the caller", single)
	}
}
