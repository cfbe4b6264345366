package tui

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/afero"
)

// The test binary doubles as the fake $EDITOR of the edit tests: run with
// editorWritesEnv set, it saves the file it is given to editorSawEnv (when set) and
// replaces it with the variable's value.
const (
	editorWritesEnv = "TUI_TEST_EDITOR_WRITES"
	editorSawEnv    = "TUI_TEST_EDITOR_SAW"
)

func TestMain(m *testing.M) {
	if content, ok := os.LookupEnv(editorWritesEnv); ok {
		os.Exit(fakeEditor(os.Args[len(os.Args)-1], content))
	}
	os.Exit(m.Run())
}

func fakeEditor(file, content string) int {
	if saw := os.Getenv(editorSawEnv); saw != "" {
		b, err := os.ReadFile(file)
		if err != nil || os.WriteFile(saw, b, 0o600) != nil {
			return 1
		}
	}
	if os.WriteFile(file, []byte(content), 0o600) != nil {
		return 1
	}
	return 0
}

// useFakeEditor makes the test binary the editor; it will write content. It returns the
// file where the editor saves what it was given.
func useFakeEditor(t *testing.T, content string) (editor []string, saw string) {
	t.Helper()
	saw = path.Join(t.TempDir(), "saw")
	t.Setenv(editorWritesEnv, content)
	t.Setenv(editorSawEnv, saw)
	return []string{os.Args[0]}, saw
}

const workspace = "/ws"

// greetFile and greetPayload are a file with two functions and a patch changing both.
const greetFile = `package greet

func hello() string {
	return "hello"
}

func bye() string {
	return "bye"
}
`

var greetPayload = patch(`*** Update File: greet.go
@@ func hello
-	return "hello"
+	return "hello, world"
@@ func bye
-	return "bye"
+	return "goodbye"`)

// patch wraps sections in the payload envelope.
func patch(sections ...string) string {
	return "*** Begin Patch\n" + strings.Join(sections, "\n") + "\n*** End Patch\n"
}

// fixture is an in-memory workspace with a terminal review of one payload.
type fixture struct {
	t    *testing.T
	fsys afero.Fs
	s    *applypatch.Session
	m    *model
	quit bool // the program asked to end
}

// newFixture writes files (relative to the workspace), resolves the payload in ask mode
// and opens the review's model on a 100×40 terminal.
func newFixture(t *testing.T, files map[string]string, payload string) *fixture {
	t.Helper()
	return newFixtureAs(t, files, payload, true)
}

// newFixtureAs is newFixture; folded starts the review with every file folded, as a
// reader who folded them, rather than as a review opens (on the diff).
func newFixtureAs(t *testing.T, files map[string]string, payload string, folded bool) *fixture {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, content := range files {
		if err := afero.WriteFile(fsys, path.Join(workspace, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := applypatch.Parse(payload)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	pr, err := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: workspace, Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	s := applypatch.NewSession(pr)
	if folded {
		if err := s.Fold(applypatch.Target{}, true); err != nil {
			t.Fatal(err)
		}
	}
	f := &fixture{t: t, fsys: fsys, s: s, m: newModel(context.Background(), s, []string{"false"})}
	f.m.exec = runNow
	f.resize(100, 40)
	return f
}

// runNow runs the editor at once, without a terminal to hand over.
func runNow(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	return func() tea.Msg { return fn(c.Run()) }
}

func (f *fixture) resize(w, h int) { f.send(tea.WindowSizeMsg{Width: w, Height: h}) }

// send delivers a message, then the messages of the commands it returns that belong to
// the review (the editor's exit); a quit is recorded.
func (f *fixture) send(msg tea.Msg) {
	f.t.Helper()
	_, cmd := f.m.Update(msg)
	for cmd != nil {
		next := cmd()
		cmd = nil
		switch next := next.(type) {
		case tea.QuitMsg:
			f.quit = true
		case editedMsg:
			_, cmd = f.m.Update(next)
		}
	}
}

// keyNames are the named keys tests press.
var keyNames = map[string]tea.KeyPressMsg{
	"tab":       {Code: tea.KeyTab},
	"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	"space":     {Code: tea.KeySpace, Text: " "},
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"backspace": {Code: tea.KeyBackspace},
	"pgdown":    {Code: tea.KeyPgDown},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	"ctrl+k":    {Code: 'k', Mod: tea.ModCtrl},
	"ctrl+s":    {Code: 's', Mod: tea.ModCtrl},
}

// press presses keys: a name of keyNames, or a single character.
func (f *fixture) press(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		msg, ok := keyNames[k]
		if !ok {
			r := []rune(k)
			if len(r) != 1 {
				f.t.Fatalf("unknown key %q", k)
			}
			msg = tea.KeyPressMsg{Code: r[0], Text: k}
		}
		f.send(msg)
	}
}

// typeText types text into the open input, a newline as Enter.
func (f *fixture) typeText(text string) {
	f.t.Helper()
	for _, r := range text {
		if r == '\n' {
			f.press("enter")
			continue
		}
		f.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen returns what the terminal shows, without colours.
func (f *fixture) screen() string {
	return ansi.Strip(f.m.View().Content)
}

// showing fails the test unless the screen shows every line part, each on a line of
// its own, in order.
func (f *fixture) showing(parts ...string) {
	f.t.Helper()
	lines := strings.Split(f.screen(), "\n")
	at := 0
	for _, p := range parts {
		for at < len(lines) && !strings.Contains(lines[at], p) {
			at++
		}
		if at == len(lines) {
			f.t.Fatalf("the screen does not show %q (in order); it shows:\n%s", p, f.screen())
		}
		at++
	}
}

// notShowing fails the test if the screen shows any of the parts.
func (f *fixture) notShowing(parts ...string) {
	f.t.Helper()
	for _, p := range parts {
		if strings.Contains(f.screen(), p) {
			f.t.Fatalf("the screen shows %q; it shows:\n%s", p, f.screen())
		}
	}
}

// finish ends the program as the reviewer does, carrying out what the person chose, and
// reports whether the review goes on.
func (f *fixture) finish() (again bool) {
	f.t.Helper()
	if !f.quit {
		f.t.Fatalf("the program did not end; it shows:\n%s", f.screen())
	}
	f.quit = false
	return f.m.settle(io.Discard)
}

// result returns the settled result; the review must have settled.
func (f *fixture) result() (*applypatch.Result, error) {
	f.t.Helper()
	if st := f.s.View().State; st != applypatch.StateSettled {
		f.t.Fatalf("the review is %s, not settled", st)
	}
	v := f.s.View()
	return v.Result, v.Err
}

// read returns a workspace file's content, or "<absent>".
func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := afero.ReadFile(f.fsys, path.Join(workspace, name))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

// write changes a workspace file behind the review's back.
func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := afero.WriteFile(f.fsys, path.Join(workspace, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}
