package adktool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/adk/adktool"
	"github.com/spf13/afero"
	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model/gemini"
	"google.golang.org/adk/runner"
	"google.golang.org/adk/session"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/toolconfirmation"
	"google.golang.org/genai"
)

const (
	appName   = "adktool_test"
	userID    = "user"
	workspace = "/work"
)

// harness is an ADK runner whose agent has the apply_patch tool over a memory
// filesystem and talks to the fake Gemini server.
type harness struct {
	t       *testing.T
	fs      afero.Fs
	model   *fakeGemini
	runner  *runner.Runner
	session string
}

// newHarness writes files into the workspace and builds the agent in mode; the model
// calls apply_patch with patch.
func newHarness(t *testing.T, mode applypatch.Mode, patch string, files map[string]string) *harness {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx := context.Background()
	fs := afero.NewMemMapFs()
	for name, content := range files {
		if err := afero.WriteFile(fs, workspace+"/"+name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake, srv := newFakeGemini(t, patch)
	llm, err := gemini.NewModel(ctx, "gemini-test", &genai.ClientConfig{
		APIKey: "test-key", Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	patchTool, err := adktool.New(&applypatch.Tool{FS: fs, Options: applypatch.Options{Workspace: workspace, Mode: mode}})
	if err != nil {
		t.Fatal(err)
	}
	editor, err := llmagent.New(llmagent.Config{
		Name: "editor", Model: llm, Instruction: "Edit files with apply_patch.", Tools: []tool.Tool{patchTool},
	})
	if err != nil {
		t.Fatal(err)
	}
	sessions := session.InMemoryService()
	created, err := sessions.Create(ctx, &session.CreateRequest{AppName: appName, UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	r, err := runner.New(runner.Config{AppName: appName, Agent: editor, SessionService: sessions})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, fs: fs, model: fake, runner: r, session: created.Session.ID()}
}

// run sends msg through the runner and returns the events, logging each part.
func (h *harness) run(msg *genai.Content) []*session.Event {
	h.t.Helper()
	var events []*session.Event
	for ev, err := range h.runner.Run(context.Background(), userID, h.session, msg, agent.RunConfig{}) {
		if err != nil {
			h.t.Fatalf("run: %v", err)
		}
		events = append(events, ev)
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				h.t.Logf("%s → call %s %s", ev.Author, p.FunctionCall.Name, jsonOf(p.FunctionCall.Args))
			case p.FunctionResponse != nil:
				h.t.Logf("%s ← response %s %s", ev.Author, p.FunctionResponse.Name, jsonOf(p.FunctionResponse.Response))
			case p.Text != "":
				h.t.Logf("%s: %s", ev.Author, p.Text)
			}
		}
	}
	return events
}

// task runs one user request.
func (h *harness) task(text string) []*session.Event {
	return h.run(genai.NewContentFromText(text, genai.RoleUser))
}

// read returns a workspace file's content.
func (h *harness) read(name string) string {
	h.t.Helper()
	b, err := afero.ReadFile(h.fs, workspace+"/"+name)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// jsonOf renders v for the log.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// output is the apply_patch function response among events, decoded.
func output(t *testing.T, events []*session.Event) adktool.Output {
	t.Helper()
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if r := p.FunctionResponse; r != nil && r.Name == "apply_patch" {
				var out adktool.Output
				if err := json.Unmarshal([]byte(jsonOf(r.Response)), &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
		}
	}
	t.Fatal("no apply_patch function response")
	return adktool.Output{}
}

// finalText is the text of the last event.
func finalText(events []*session.Event) string {
	if len(events) == 0 || events[len(events)-1].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range events[len(events)-1].Content.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestEditApplies checks that an edits-mode call goes through the runner and is applied, and that the model gets the result and answers.
func TestEditApplies(t *testing.T) {
	h := newHarness(t, applypatch.ModeEdits, "*** Begin Patch\n*** Update File: hello.txt\n@@\n hello\n-world\n+there\n*** End Patch\n",
		map[string]string{"hello.txt": "hello\nworld\n"})
	events := h.task("Change world to there")
	if got := h.read("hello.txt"); got != "hello\nthere\n" {
		t.Errorf("hello.txt = %q", got)
	}
	out := output(t, events)
	if out.Status != "applied" || !strings.Contains(out.Output, "hello.txt") {
		t.Errorf("output = %+v", out)
	}
	if sent := h.model.sent(); sent == nil || sent.Name != "apply_patch" || !strings.Contains(jsonOf(sent.Response), "applied") {
		t.Errorf("the model was sent %s", jsonOf(sent))
	}
	if got := finalText(events); got != "done" {
		t.Errorf("final text = %q", got)
	}
}

// TestForbiddenPathRefused checks that a patch writing .ssh/config comes back as a refusal and writes nothing.
func TestForbiddenPathRefused(t *testing.T) {
	h := newHarness(t, applypatch.ModeEdits, "*** Begin Patch\n*** Add File: .ssh/config\n+Host *\n*** End Patch\n", nil)
	out := output(t, h.task("Configure ssh"))
	if out.Status != "error" || !strings.HasPrefix(out.Output, "Error: ") || !strings.Contains(out.Output, ".ssh") {
		t.Errorf("output = %+v", out)
	}
	if ok, _ := afero.Exists(h.fs, workspace+"/.ssh/config"); ok {
		t.Error(".ssh/config was written")
	}
	if ok, _ := afero.DirExists(h.fs, workspace+"/.ssh"); ok {
		t.Error(".ssh was created")
	}
	if sent := h.model.sent(); sent == nil || !strings.Contains(jsonOf(sent.Response), "Error: ") {
		t.Errorf("the model was sent %s", jsonOf(sent))
	}
}

// TestCRLFTabsKept checks that a tab-indented CRLF file keeps every byte except the change.
func TestCRLFTabsKept(t *testing.T) {
	before := "func f() int {\r\n\tif ok {\r\n\t\treturn 1\r\n\t}\r\n\treturn 0\r\n}\r\n"
	want := "func f() int {\r\n\tif ok {\r\n\t\treturn 2\r\n\t}\r\n\treturn 0\r\n}\r\n"
	h := newHarness(t, applypatch.ModeEdits,
		"*** Begin Patch\n*** Update File: f.go\n@@\n \tif ok {\n-\t\treturn 1\n+\t\treturn 2\n \t}\n*** End Patch\n",
		map[string]string{"f.go": before})
	if out := output(t, h.task("Return 2")); out.Status != "applied" {
		t.Errorf("output = %+v", out)
	}
	if got := h.read("f.go"); got != want {
		t.Errorf("f.go = %q, want %q", got, want)
	}
}

// twoHunks is a file and a patch changing it in two places far apart.
const (
	twoHunksFile  = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	twoHunksPatch = "*** Begin Patch\n*** Update File: two.txt\n@@\n a\n-b\n+B\n c\n@@\n l\n-m\n+M\n n\n*** End Patch\n"
)

// confirmationRequest finds the adk_request_confirmation call among events and returns
// it with the card it carries.
func confirmationRequest(t *testing.T, events []*session.Event) (*genai.FunctionCall, adktool.Request) {
	t.Helper()
	for _, ev := range events {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if fc := p.FunctionCall; fc != nil && fc.Name == toolconfirmation.FunctionCallName {
				var tc struct {
					Hint    string          `json:"hint"`
					Payload adktool.Request `json:"payload"`
				}
				if err := json.Unmarshal([]byte(jsonOf(fc.Args["toolConfirmation"])), &tc); err != nil {
					t.Fatal(err)
				}
				return fc, tc.Payload
			}
		}
	}
	t.Fatal("no confirmation request")
	return nil, adktool.Request{}
}

// answer sends the person's answer to a confirmation request.
func (h *harness) answer(fc *genai.FunctionCall, confirmed bool, d adktool.Decision) []*session.Event {
	return h.run(&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID: fc.ID, Name: toolconfirmation.FunctionCallName,
		Response: map[string]any{"confirmed": confirmed, "payload": d},
	}}}})
}

// TestAskAppliesSelectedHunk runs the confirmation round trip: the card, an answer selecting hunk 1 of 2, and only that hunk written.
func TestAskAppliesSelectedHunk(t *testing.T) {
	h := newHarness(t, applypatch.ModeAsk, twoHunksPatch, map[string]string{"two.txt": twoHunksFile})
	events := h.task("Capitalise b and m")
	if out := output(t, events); out.Status != adktool.StatusPending {
		t.Errorf("first output = %+v", out)
	}
	fc, card := confirmationRequest(t, events)
	if !strings.Contains(card.Diff, "*** Update File: two.txt") || !strings.Contains(card.Header, "2/2 changes") {
		t.Errorf("card = %+v", card)
	}
	var hunks []applypatch.Target
	for _, c := range card.Changes {
		if c.Path == "two.txt" && c.Target.Hunk > 0 {
			hunks = append(hunks, c.Target)
		}
	}
	if len(hunks) != 2 {
		t.Fatalf("card changes = %+v", card.Changes)
	}
	if got := h.read("two.txt"); got != twoHunksFile {
		t.Fatalf("two.txt was written before the answer: %q", got)
	}

	events = h.answer(fc, true, adktool.Decision{Decision: adktool.DecisionApply, Select: hunks[:1]})
	if out := output(t, events); out.Status != "applied" {
		t.Errorf("output = %+v", out)
	}
	if sent := h.model.sent(); sent == nil || !strings.Contains(jsonOf(sent.Response), "Rejected: two.txt hunk 2") {
		t.Errorf("the model was sent %s", jsonOf(sent))
	}
	if got, want := h.read("two.txt"), strings.Replace(twoHunksFile, "b\n", "B\n", 1); got != want {
		t.Errorf("two.txt = %q, want %q", got, want)
	}
	if got := finalText(events); got != "done" {
		t.Errorf("final text = %q", got)
	}
}

// TestAskRefusesChangedFile checks that a file changed between the question and the answer is refused.
func TestAskRefusesChangedFile(t *testing.T) {
	h := newHarness(t, applypatch.ModeAsk, twoHunksPatch, map[string]string{"two.txt": twoHunksFile})
	fc, _ := confirmationRequest(t, h.task("Capitalise b and m"))
	changed := twoHunksFile + "o\n"
	if err := afero.WriteFile(h.fs, workspace+"/two.txt", []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out := output(t, h.answer(fc, true, adktool.Decision{}))
	if out.Status != "error" || !strings.Contains(out.Output, "two.txt") {
		t.Errorf("output = %+v", out)
	}
	if got := h.read("two.txt"); got != changed {
		t.Errorf("two.txt = %q", got)
	}
}

// TestAskFeedbackWritesNothing checks that a feedback answer writes nothing and sends the comment.
func TestAskFeedbackWritesNothing(t *testing.T) {
	h := newHarness(t, applypatch.ModeAsk, twoHunksPatch, map[string]string{"two.txt": twoHunksFile})
	fc, _ := confirmationRequest(t, h.task("Capitalise b and m"))
	out := output(t, h.answer(fc, true, adktool.Decision{Decision: adktool.DecisionFeedback, Feedback: "Leave m alone."}))
	if out.Status != "revision" || !strings.Contains(out.Output, "Leave m alone.") {
		t.Errorf("output = %+v", out)
	}
	if got := h.read("two.txt"); got != twoHunksFile {
		t.Errorf("two.txt = %q", got)
	}
}

// TestAskRejectWritesNothing checks that confirmed false writes nothing and tells the model.
func TestAskRejectWritesNothing(t *testing.T) {
	h := newHarness(t, applypatch.ModeAsk, twoHunksPatch, map[string]string{"two.txt": twoHunksFile})
	fc, _ := confirmationRequest(t, h.task("Capitalise b and m"))
	events := h.answer(fc, false, adktool.Decision{})
	if got := h.read("two.txt"); got != twoHunksFile {
		t.Errorf("two.txt = %q", got)
	}
	if sent := h.model.sent(); sent == nil || !strings.Contains(jsonOf(sent.Response), "rejected") {
		t.Errorf("the model was sent %s", jsonOf(sent))
	}
	if got := finalText(events); got != "done" {
		t.Errorf("final text = %q", got)
	}
}
