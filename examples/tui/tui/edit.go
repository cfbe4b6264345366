package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
)

// lineFlagEditors open a file at a line given as "+N" before the file name.
var lineFlagEditors = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "view": true, "nano": true, "emacs": true,
	"emacsclient": true, "micro": true, "mg": true, "joe": true, "ne": true, "kak": true,
}

// edit opens a revision of the file under the cursor (R8): the result the patch proposes
// with the current selection is written to a temporary file named like the file, and the
// editor runs on it with the terminal handed over.
func (m *model) edit() tea.Cmd {
	rev, err := m.s.Revise(m.cursor)
	if err != nil {
		return m.report(err)
	}
	file, err := writeProposed(rev)
	if err != nil {
		rev.Cancel()
		return m.report(err)
	}
	args := slices.Clone(m.editor[1:])
	if lineFlagEditors[filepath.Base(m.editor[0])] {
		args = append(args, fmt.Sprintf("+%d", rev.Line))
	}
	cmd := exec.Command(m.editor[0], append(args, file)...)
	m.waiting = true
	return m.exec(cmd, func(err error) tea.Msg { return editedMsg{rev: rev, file: file, err: err} })
}

// writeProposed writes the revision's proposed text to a new private directory, under
// the file's own name so the editor knows its type.
func writeProposed(rev *applypatch.Revision) (string, error) {
	dir, err := os.MkdirTemp("", "applypatch-edit-")
	if err != nil {
		return "", fmt.Errorf("cannot create the file to edit: %w", err)
	}
	name := path.Base(filepath.ToSlash(rev.Path))
	if name == "." || name == "/" {
		name = "file"
	}
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(rev.Proposed), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("cannot write the file to edit: %w", err)
	}
	return file, nil
}

// edited reads the edited file back and adopts it.
func (m *model) edited(msg editedMsg) tea.Cmd {
	m.waiting = false
	defer os.RemoveAll(filepath.Dir(msg.file))
	if msg.err != nil {
		msg.rev.Cancel()
		return m.report(fmt.Errorf("the editor failed (%w); nothing was adopted", msg.err))
	}
	text, err := os.ReadFile(msg.file)
	if err != nil {
		msg.rev.Cancel()
		return m.report(fmt.Errorf("cannot read the edited file (%w); nothing was adopted", err))
	}
	return m.adopt(msg.rev, string(text))
}

// adopt stages the edited text, asking first when adopting clears feedback (R8). Text
// handed back as it was written out is a quiet no-op.
func (m *model) adopt(rev *applypatch.Revision, text string) tea.Cmd {
	if text == rev.Proposed {
		rev.Cancel()
		m.follow = true
		m.setStatus("No change to adopt; the patch stays as proposed")
		return nil
	}
	err := rev.Adopt(text, nil)
	if prompt, ok := needsConfirm(err); ok {
		m.confirm(prompt,
			func() tea.Cmd { return m.adopted(rev, rev.Adopt(text, applypatch.DiscardFeedback)) },
			func() tea.Cmd { rev.Cancel(); m.setStatus("Edit not adopted"); return nil })
		return nil
	}
	return m.adopted(rev, err)
}

// adopted reports how an adoption went and closes a revision that was not adopted.
func (m *model) adopted(rev *applypatch.Revision, err error) tea.Cmd {
	m.follow = true
	switch {
	case err == nil:
		m.setStatus("Adopted your edit of " + printable(rev.Path))
		return nil
	}
	rev.Cancel()
	return m.report(fmt.Errorf("edit not adopted: %w", err))
}
