package tui

import (
	"context"
	"errors"
	"os/exec"

	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
)

// model is the bubbletea model of one review. It renders the session on every frame and
// turns keys into session calls; its own fields are only the terminal's size, the cursor,
// the scroll position, the status line, the prompt that is open and, when the program
// ends, what the person chose.
type model struct {
	ctx    context.Context
	s      *applypatch.Session
	editor []string
	// exec runs the editor; tea.ExecProcess, which hands it the terminal.
	exec func(*exec.Cmd, tea.ExecCallback) tea.Cmd

	width, height int
	cursor        applypatch.Target
	vp            viewport.Model
	follow        bool // scroll to keep the cursor's row in view

	status  string
	failed  bool // the status line reports a refusal
	chord   bool // C-c was pressed; the next key completes the chord
	waiting bool // the editor is running
	intent  intent
	ask     *question
	note    *noteEditor

	view        applypatch.View // the snapshot the frame is drawn from
	top, bottom []string
}

// A question is a yes/no prompt; yes runs on "y", no (which may be nil) on "n" or Esc.
type question struct {
	prompt  string
	yes, no func() tea.Cmd
}

// A noteEditor is the open feedback input and the target it stages feedback on.
type noteEditor struct {
	target applypatch.Target
	title  string
	had    bool // the target already carried feedback
	area   textarea.Model
}

// Messages of the program's own commands.
type (
	// settledMsg: the session settled (by this program or from outside).
	settledMsg struct{}
	// editedMsg: the editor exited.
	editedMsg struct {
		rev  *applypatch.Revision
		file string
		err  error
	}
)

// newModel returns the model of a review of s; ctx is the review's.
func newModel(ctx context.Context, s *applypatch.Session, editor []string) *model {
	m := &model{ctx: ctx, s: s, editor: editor, exec: tea.ExecProcess, width: 80, height: 24, follow: true}
	m.cursor, _ = s.Next(applypatch.Target{}, false)
	m.refresh()
	return m
}

// Init waits for the session to settle, so that a review settled from outside (its
// context cancelled) ends the program too.
func (m *model) Init() tea.Cmd {
	done := m.s.Done()
	return func() tea.Msg {
		<-done
		return settledMsg{}
	}
}

// Update handles one message and redraws.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height, m.follow = msg.Width, msg.Height, true
		if m.note != nil {
			m.note.area.SetWidth(max(10, m.width-2))
		}
	case settledMsg:
		return m, tea.Quit
	case editedMsg:
		cmd = m.edited(msg)
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	case tea.PasteMsg:
		if m.note != nil {
			m.note.area, cmd = m.note.area.Update(msg)
		}
	}
	m.refresh()
	return m, cmd
}

// key dispatches a key press to the prompt that is open, else to the review's keys.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.waiting:
		return nil
	case m.ask != nil:
		return m.answer(k)
	case m.note != nil:
		return m.noteKey(k)
	case m.chord:
		m.chord = false
		return m.run(chordKeys, k, "C-c "+k.String()+" is not a command")
	}
	m.setStatus("")
	return m.run(reviewKeys, k, "")
}

// run calls the action a key map binds to k; an unbound key reports unknown, if set.
func (m *model) run(keys map[string]func(*model) tea.Cmd, k tea.KeyPressMsg, unknown string) tea.Cmd {
	if act, ok := keys[k.String()]; ok {
		return act(m)
	}
	if unknown != "" {
		m.fail(errors.New(unknown))
	}
	return nil
}

// answer handles a key while a yes/no question is open.
func (m *model) answer(k tea.KeyPressMsg) tea.Cmd {
	q := m.ask
	switch k.String() {
	case "y", "Y":
		m.ask = nil
		return q.yes()
	case "n", "N", "esc", "ctrl+g":
		m.ask = nil
		m.setStatus("")
		if q.no != nil {
			return q.no()
		}
	}
	return nil
}

// confirm opens a yes/no question.
func (m *model) confirm(prompt string, yes, no func() tea.Cmd) {
	m.ask = &question{prompt: prompt, yes: yes, no: no}
}

// needsConfirm returns the question a refused request wants asked before it is repeated
// with a yes (R7).
func needsConfirm(err error) (string, bool) {
	var re *applypatch.ReviewError
	if errors.As(err, &re) && re.Reason == applypatch.ReviewNeedsConfirm {
		return re.Prompt, true
	}
	return "", false
}

// setStatus shows an informational status line.
func (m *model) setStatus(s string) { m.status, m.failed = s, false }

// fail shows a refusal in the status line; a nil error shows nothing.
func (m *model) fail(err error) {
	if err != nil {
		m.status, m.failed = err.Error(), true
	}
}

// report shows err, if any, and returns no command: for actions that end in one call.
func (m *model) report(err error) tea.Cmd {
	m.fail(err)
	return nil
}
