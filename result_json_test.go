package applypatch

import (
	"encoding/json"
	"testing"
)

// H5: a FileResult decodes a move's destination from "movePath" and from "move-path",
// the key earlier versions wrote, and a check's result decoded from its JSON renders
// the same text ("checked" rides in the status alone).
func TestResultJSONDecodesOldAndNew(t *testing.T) {
	for _, in := range []string{`{"path":"a","movePath":"b","kind":"move"}`, `{"path":"a","move-path":"b","kind":"move"}`} {
		var f FileResult
		if err := json.Unmarshal([]byte(in), &f); err != nil || f.Path != "a" || f.MovePath != "b" || f.Kind != "move" {
			t.Errorf("%s: decoded %+v, %v", in, f, err)
		}
	}
	r := &Result{Kind: resultKind, Status: StatusChecked, Applied: 1, Total: 1, Checked: true,
		Files: []FileResult{{Path: "a", MovePath: "b", Kind: "move"}}, Notes: []string{}, Items: []string{"Would apply: a -> b"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Text() != r.Text() || back.Files[0].MovePath != "b" {
		t.Errorf("decoded result renders %q, want %q", back.Text(), r.Text())
	}
}
