package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/envelope"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// memFiles builds a MemMapFs workspace at /ws holding files.
func memFiles(t testing.TB, files map[string]string) afero.Fs {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, data := range files {
		if err := afero.WriteFile(fsys, "/ws/"+name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return fsys
}

// contents returns every file of fsys by its path, to prove what changed.
func contents(t testing.TB, fsys afero.Fs) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := afero.Walk(fsys, "/", func(name string, fi fs.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := afero.ReadFile(fsys, name)
		out[name] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFiles checks that fsys holds after, or, when after is nil (a refusal), still
// holds before.
func checkFiles(t *testing.T, fsys afero.Fs, before, after map[string]string) {
	t.Helper()
	want := after
	if want == nil {
		want = before
	}
	if diff := cmp.Diff(want, contents(t, fsys)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// patchArgs encodes a payload as the tool's arguments.
func patchArgs(t testing.TB, name, payload string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]string{name: payload})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const toolBase = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"

// TestToolDefinition checks the definition a host registers (H1).
func TestToolDefinition(t *testing.T) {
	def := (&Tool{}).Definition()
	if def.Name != "apply_patch" {
		t.Errorf("name = %q", def.Name)
	}
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if schema.Type != "object" || len(schema.Properties) != 1 || schema.Properties["patchText"].Type != "string" ||
		!cmp.Equal(schema.Required, []string{"patchText"}) || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Errorf("schema = %+v; want one required string property patchText and no others", schema)
	}
	for _, want := range []string{"*** Begin Patch", "*** Add File: ", "*** Update File: ", "*** Delete File: ",
		"*** Move to: ", "*** End of File", "*** End Patch", "@@ ", "exactly", `"patchText"`} {
		if !strings.Contains(def.Description, want) {
			t.Errorf("description does not teach %q", want)
		}
	}
	// The description's own example must be a payload the parser accepts.
	example := def.Description[strings.Index(def.Description, envelope.Begin) : strings.Index(def.Description, envelope.End)+len(envelope.End)]
	if _, err := Parse(example); err != nil {
		t.Errorf("the description's example does not parse: %v", err)
	}
	b, _ := json.Marshal(def)
	if !strings.Contains(string(b), `"parameters":{"type":"object"`) {
		t.Errorf("definition JSON = %s", b)
	}
}

// TestToolCall runs tool calls end to end on a MemMapFs (H3): a success writes, every
// failure is an "Error: " text with an error status and writes nothing.
func TestToolCall(t *testing.T) {
	const update = "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n" +
		"*** Add File: docs/README.md\n+# demo\n*** End Patch"
	tests := []struct {
		name   string
		args   json.RawMessage
		mode   Mode
		text   string            // the exact text, or its prefix when it ends in "…"
		status Status            // the result's status
		is     error             // what the error must match, nil for success
		after  map[string]string // the files after the call; nil means unchanged
	}{
		{name: "applied", args: patchArgs(t, "patchText", update),
			text:   "Applied patch: 2 changes\nApplied: main.go hunk 1\nApplied: docs/README.md",
			status: StatusApplied,
			after: map[string]string{"/ws/main.go": strings.Replace(toolBase, `"hi"`, `"hello"`, 1),
				"/ws/docs/README.md": "# demo\n"}},
		{name: "input alias", args: patchArgs(t, "input", update), mode: ModeFullAuto,
			text: "Applied patch: 2 changes…", status: StatusApplied,
			after: map[string]string{"/ws/main.go": strings.Replace(toolBase, `"hi"`, `"hello"`, 1),
				"/ws/docs/README.md": "# demo\n"}},
		{name: "parse error", args: patchArgs(t, "patchText", "*** Begin Patch\n*** Update File: main.go\n-x\n+y\n"),
			text:   `Error: invalid patch: line 4 "+y": the last line of the patch must be '*** End Patch'…`,
			status: StatusError, is: &ParseError{}},
		{name: "context not found", args: patchArgs(t, "patchText",
			"*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: main.go\n@@\n-\tprintln(\"bye\")\n+\tprintln(\"x\")\n*** End Patch"),
			text: "Error: main.go: hunk 1…", status: StatusError, is: &MatchError{}},
		{name: "bad arguments", args: json.RawMessage(`{"patchText": "` + "*** Begin Patch" + `", "cwd": "/"}`),
			text: `Error: invalid arguments: unknown argument "cwd"…`, status: StatusError, is: &ParseError{}},
		{name: "forbidden path", args: patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: .ssh/authorized_keys\n+key\n*** End Patch"),
			mode: ModeFullAuto, text: "Error: .ssh/authorized_keys: the path is…", status: StatusError, is: &FileError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFiles(t, map[string]string{"main.go": toolBase})
			before := contents(t, fsys)
			mode := tt.mode
			if mode == "" { // unset: a tool without a Reviewer applies in edits mode
				mode = ModeEdits
			}
			tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: mode}}
			text, res, err := tool.Call(context.Background(), tt.args)
			if want, prefix := strings.CutSuffix(tt.text, "…"); prefix && !strings.HasPrefix(text, want) || !prefix && text != want {
				t.Errorf("text:\n%s\nwant:\n%s", text, tt.text)
			}
			if text != res.Text() || res.Status != tt.status {
				t.Errorf("result %s %q disagrees with text %q, want status %s", res.Status, res.Text(), text, tt.status)
			}
			if tt.is == nil && err != nil || tt.is != nil && !matchesErr(err, tt.is) {
				t.Errorf("err = %v (%T), want %T", err, err, tt.is)
			}
			checkFiles(t, fsys, before, tt.after)
		})
	}
}

// TestToolUsesHostOptions checks that the tool runs with the host's Options: the
// Authorizer decides an outside path in edits mode (F4, H3).
func TestToolUsesHostOptions(t *testing.T) {
	payload := "*** Begin Patch\n*** Add File: ../shared/notes.txt\n+n\n*** End Patch"
	for _, allow := range []bool{false, true} {
		fsys := memFiles(t, map[string]string{"main.go": toolBase})
		var asked []ClassifiedPath
		tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeEdits,
			Authorizer: authorizerFunc(func(_ context.Context, mode Mode, paths []ClassifiedPath) error {
				asked = append(asked, paths...)
				if !allow {
					return errors.New("the user said no")
				}
				return nil
			})}}
		text, _, err := tool.Call(context.Background(), patchArgs(t, "patchText", payload))
		if len(asked) != 1 || asked[0].Path != "../shared/notes.txt" || asked[0].Class != ClassOutside {
			t.Fatalf("allow=%v: the Authorizer was asked %+v", allow, asked)
		}
		_, statErr := fsys.Stat("/shared/notes.txt")
		if allow != (err == nil) || allow != (statErr == nil) {
			t.Errorf("allow=%v: %q, err %v, file written: %v", allow, text, err, statErr == nil)
		}
	}
}

// TestToolWithoutFS checks that a host that forgot the filesystem gets a clear error.
func TestToolWithoutFS(t *testing.T) {
	text, _, err := (&Tool{}).Call(context.Background(), patchArgs(t, "patchText", "*** Begin Patch\n*** Delete File: a\n*** End Patch"))
	if err == nil || !strings.Contains(text, "Tool.FS") {
		t.Errorf("Call without FS = %q, %v", text, err)
	}
}

// TestToolAskAllowed checks that ask mode needs no reviewer for a call whose every path
// the host's allow rules cover, and still refuses one they do not cover (F4).
func TestToolAskAllowed(t *testing.T) {
	fsys := memFiles(t, map[string]string{"main.go": toolBase})
	tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeAsk, Allow: []string{"docs"}}}
	text, _, err := tool.Call(context.Background(), patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: docs/a.md\n+a\n*** End Patch"))
	if err != nil || text != "Applied patch: 1 change\nApplied: docs/a.md" {
		t.Errorf("covered call = %q, %v", text, err)
	}
	text, _, err = tool.Call(context.Background(), patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: docs/b.md\n+b\n*** Add File: b.go\n+b\n*** End Patch"))
	if !errors.Is(err, errNoReviewer) {
		t.Errorf("uncovered call = %q, %v", text, err)
	}
	if _, err := fsys.Stat("/ws/docs/b.md"); err == nil {
		t.Error("the refused call wrote docs/b.md")
	}
}

// TestToolAsk checks ask mode: the Reviewer settles every call that touches the
// workspace, and what it selects is what is written (F4, H3, R10, S4).
func TestToolAsk(t *testing.T) {
	const payload = "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n" +
		"*** Add File: docs/README.md\n+# demo\n*** End Patch"
	updated := strings.Replace(toolBase, `"hi"`, `"hello"`, 1)
	// partly turns the new file down with a comment and submits the rest.
	partly := ReviewerFunc(func(ctx context.Context, s *Session) error {
		readme, err := s.Find("docs/README.md", 0)
		if err == nil {
			err = s.SetFeedback(readme, "no docs yet")
		}
		if err == nil {
			_, err = s.Submit(ctx)
		}
		return err
	})
	reject := ReviewerFunc(func(_ context.Context, s *Session) error { return s.Reject() })
	tests := []struct {
		name     string
		reviewer Reviewer
		text     string
		is       error
		after    map[string]string
	}{
		{name: "approved", reviewer: autoApprove,
			text:  "Applied patch: 2 changes\nApplied: main.go hunk 1\nApplied: docs/README.md",
			after: map[string]string{"/ws/main.go": updated, "/ws/docs/README.md": "# demo\n"}},
		{name: "partly", reviewer: partly,
			text:  "Applied patch: 1 change\nApplied: main.go hunk 1\nRejected: docs/README.md\nFeedback: docs/README.md: no docs yet",
			after: map[string]string{"/ws/main.go": updated}},
		{name: "revision", reviewer: ReviewerFunc(func(ctx context.Context, s *Session) error {
			_, err := s.CardFeedback(ctx, "print the user's name")
			return err
		}),
			text: "Patch revision requested\nFeedback (whole patch): print the user's name\nRejected: main.go hunk 1\nRejected: docs/README.md"},
		{name: "rejected", reviewer: reject, text: "Error: Patch rejected", is: ErrRejected},
		{name: "no reviewer", text: "Error: " + errNoReviewer.Error(), is: errNoReviewer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := memFiles(t, map[string]string{"main.go": toolBase})
			before := contents(t, fsys)
			tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeAsk}, Reviewer: tt.reviewer}
			text, res, err := tool.Call(context.Background(), patchArgs(t, "patchText", payload))
			if text != tt.text {
				t.Errorf("text:\n%s\nwant:\n%s", text, tt.text)
			}
			if tt.is == nil && err != nil || tt.is != nil && !matchesErr(err, tt.is) {
				t.Errorf("err = %v, want %v", err, tt.is)
			}
			if res.Reviewed != (tt.reviewer != nil) {
				t.Errorf("reviewed = %v", res.Reviewed)
			}
			checkFiles(t, fsys, before, tt.after)
		})
	}
}

// TestToolAskOutsideOnly checks that ask mode leaves a call touching no workspace path to
// the Authorizer, which already decided it (F4).
func TestToolAskOutsideOnly(t *testing.T) {
	fsys := memFiles(t, map[string]string{"main.go": toolBase})
	reviewed := false
	tool := &Tool{FS: fsys, Options: Options{Workspace: "/ws", Mode: ModeAsk,
		Authorizer: authorizerFunc(func(context.Context, Mode, []ClassifiedPath) error { return nil })},
		Reviewer: ReviewerFunc(func(ctx context.Context, s *Session) error {
			reviewed = true
			return s.Reject()
		})}
	text, _, err := tool.Call(context.Background(), patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: /shared/n.txt\n+n\n*** End Patch"))
	if err != nil || reviewed || text != "Applied patch: 1 change\nApplied: /shared/n.txt" {
		t.Errorf("Call = %q, %v; reviewed %v", text, err, reviewed)
	}
	text, _, _ = tool.Call(context.Background(), patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: /shared/m.txt\n+m\n*** Add File: m.txt\n+m\n*** End Patch"))
	if !reviewed || text != "Error: Patch rejected" {
		t.Errorf("a call touching the workspace too = %q, reviewed %v", text, reviewed)
	}
}

// TestToolZeroModeReviews: the zero Mode is ModeAsk, so a Tool given a Reviewer hands it
// the call, and one without a Reviewer refuses to write (F4).
func TestToolZeroModeReviews(t *testing.T) {
	args := patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch")
	reviewed := false
	rv := ReviewerFunc(func(ctx context.Context, s *Session) error {
		reviewed = true
		_, err := s.Submit(ctx)
		return err
	})
	fsys := afero.NewMemMapFs()
	if _, res, err := (&Tool{FS: fsys, Reviewer: rv}).Call(context.Background(), args); err != nil || !reviewed || !res.Reviewed {
		t.Errorf("a Tool with a Reviewer and no Mode: reviewed %v, err %v", reviewed, err)
	}
	other := afero.NewMemMapFs()
	if _, _, err := (&Tool{FS: other}).Call(context.Background(), args); !errors.Is(err, errNoReviewer) {
		t.Errorf("a Tool without a Reviewer and no Mode: err %v, want errNoReviewer", err)
	}
	if _, err := other.Stat("/a.txt"); err == nil {
		t.Error("a Tool without a Reviewer wrote a.txt")
	}
}

// TestToolUnknownModeReviews: a Mode the library does not declare ("Ask", a typo in a
// host's settings) is ModeAsk, never a mode that skips the review (F4).
func TestToolUnknownModeReviews(t *testing.T) {
	args := patchArgs(t, "patchText", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch")
	for _, m := range []Mode{"Ask", "ASK", " ask", "auto", "review"} {
		reviewed := false
		rv := ReviewerFunc(func(ctx context.Context, s *Session) error {
			reviewed = true
			_, err := s.Submit(ctx)
			return err
		})
		if _, _, err := (&Tool{FS: afero.NewMemMapFs(), Reviewer: rv, Options: Options{Mode: m}}).Call(context.Background(), args); err != nil || !reviewed {
			t.Errorf("Mode %q with a Reviewer: reviewed %v, err %v", m, reviewed, err)
		}
		fsys := afero.NewMemMapFs()
		if _, _, err := (&Tool{FS: fsys, Options: Options{Mode: m}}).Call(context.Background(), args); !errors.Is(err, errNoReviewer) {
			t.Errorf("Mode %q without a Reviewer: err %v, want errNoReviewer", m, err)
		}
		if _, err := fsys.Stat("/a.txt"); err == nil {
			t.Errorf("Mode %q without a Reviewer wrote a.txt", m)
		}
	}
}
