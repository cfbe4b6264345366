package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/spf13/afero"
)

// TestParseToolArgs pins every H2 case: the patch text comes from "patchText" or its
// alias "input"; everything else fails with a message saying what to send instead.
func TestParseToolArgs(t *testing.T) {
	const patch = "*** Begin Patch\n*** Delete File: a\n*** End Patch"
	tests := []struct {
		name, args string
		want       string // the patch text, when valid
		msg        string // the exact error message, when not
	}{
		{name: "patchText", args: `{"patchText": "` + "*** Begin Patch\\n*** Delete File: a\\n*** End Patch" + `"}`, want: patch},
		{name: "input alias", args: `{"input": "x"}`, want: "x"},
		{name: "surrounding whitespace", args: " \n{\"patchText\" : \n \"x\" }\n", want: "x"},
		{name: "unknown property", args: `{"patchText": "x", "path": "a.go"}`,
			msg: `invalid arguments: unknown argument "path": the only argument is "patchText", a string holding the whole patch; remove the others`},
		{name: "unknown properties", args: `{"patch": "x", "dry_run": true}`,
			msg: `invalid arguments: unknown arguments "patch", "dry_run": the only argument is "patchText", a string holding the whole patch; remove the others`},
		{name: "wrong case", args: `{"patchtext": "x"}`,
			msg: `invalid arguments: unknown argument "patchtext": the only argument is "patchText", a string holding the whole patch; remove the others`},
		{name: "missing", args: `{}`,
			msg: `invalid arguments: "patchText" is missing; send the whole patch, from "*** Begin Patch" to "*** End Patch", as the string property "patchText"`},
		{name: "empty", args: `{"patchText": ""}`,
			msg: `invalid arguments: "patchText" is empty; send the whole patch, from "*** Begin Patch" to "*** End Patch"`},
		{name: "blank", args: `{"patchText": " \n\t"}`,
			msg: `invalid arguments: "patchText" is empty; send the whole patch, from "*** Begin Patch" to "*** End Patch"`},
		{name: "empty alias", args: `{"input": ""}`,
			msg: `invalid arguments: "input" is empty; send the whole patch, from "*** Begin Patch" to "*** End Patch"`},
		{name: "number", args: `{"patchText": 42}`,
			msg: `invalid arguments: "patchText" must be a string holding the whole patch, not a number`},
		{name: "number after whitespace", args: "{\"patchText\":\n\t42}",
			msg: `invalid arguments: "patchText" must be a string holding the whole patch, not a number`},
		{name: "null", args: `{"patchText": null}`,
			msg: `invalid arguments: "patchText" must be a string holding the whole patch, not null`},
		{name: "array", args: `{"patchText": ["*** Begin Patch"]}`,
			msg: `invalid arguments: "patchText" must be a string holding the whole patch, not an array`},
		{name: "object", args: `{"input": {"patchText": "x"}}`,
			msg: `invalid arguments: "input" must be a string holding the whole patch, not an object`},
		{name: "boolean", args: `{"patchText": true}`,
			msg: `invalid arguments: "patchText" must be a string holding the whole patch, not a boolean`},
		{name: "both", args: `{"patchText": "x", "input": "x"}`,
			msg: `invalid arguments: both "patchText" and "input" were given; send the patch once, in "patchText"`},
		{name: "twice", args: `{"patchText": "x", "patchText": "y"}`,
			msg: `invalid arguments: "patchText" is given twice; send it once`},
		{name: "not an object", args: `"*** Begin Patch"`, msg: "invalid arguments: " + msgNotObject},
		{name: "array of args", args: `[{"patchText": "x"}]`, msg: "invalid arguments: " + msgNotObject},
		{name: "invalid JSON", args: `{"patchText": "x"`, msg: "invalid arguments: " + msgNotObject},
		{name: "trailing value", args: `{"patchText": "x"} {}`, msg: "invalid arguments: " + msgNotObject},
		{name: "no arguments", args: ``, msg: "invalid arguments: " + msgNotObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseToolArgs(json.RawMessage(tt.args))
			if tt.msg == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseToolArgs = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseToolArgs = %q, nil; want error %q", got, tt.msg)
			}
			if err.Error() != tt.msg {
				t.Errorf("message:\n got %s\nwant %s", err, tt.msg)
			}
			if !errors.As(err, new(*ParseError)) {
				t.Errorf("errors.As(err, new(*ParseError)) = false for %T", err)
			}
		})
	}
}

// FuzzToolArgs checks that no argument bytes make the tool panic, that the text and the
// result always agree, and that rejected arguments write nothing (H2, X1).
func FuzzToolArgs(f *testing.F) {
	for _, seed := range []string{
		`{"patchText": "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"}`,
		`{"input": "*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+ONE\n*** End Patch"}`,
		`{"patchText": 1}`, `{"patchText": "x", "input": "y"}`, `{}`, `[]`, `null`, `{"a":{"b":[1,2]}}`,
		`{"patchText": "\u0000"}`, `{"patchText": "x",}`, `{"patchText": "x"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		fsys := afero.NewMemMapFs()
		afero.WriteFile(fsys, "/f.txt", []byte("one\ntwo\n"), 0o644)
		tool := &Tool{FS: fsys, Options: Options{Mode: ModeEdits}}
		text, res, err := tool.Call(context.Background(), json.RawMessage(args))
		if text != res.Text() {
			t.Fatalf("text %q differs from the result's %q", text, res.Text())
		}
		if (err != nil) != (res.Status == StatusError) {
			t.Fatalf("err = %v but status %s", err, res.Status)
		}
		if _, perr := ParseToolArgs(args); perr != nil {
			if !errors.As(err, new(*ParseError)) {
				t.Fatalf("rejected arguments gave %v", err)
			}
			if b, _ := afero.ReadFile(fsys, "/f.txt"); string(b) != "one\ntwo\n" {
				t.Fatalf("rejected arguments changed f.txt to %q", b)
			}
		}
	})
}
