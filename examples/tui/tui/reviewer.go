// Package tui is a terminal front end for an applypatch review: a [Reviewer] that shows
// the live [applypatch.Session] as a bubbletea program and drives it with keys.
//
// The program holds no review state of its own. Every frame is drawn from the session
// (its header, rows, fold and selection glyphs, gutters, feedback, conflict and primary
// label), and every key calls a session method; what the program keeps is only where the
// cursor is, how far the list is scrolled and which prompt is open.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
)

// A Reviewer reviews a patch in the terminal: it implements [applypatch.Reviewer] by
// running a bubbletea program over the session until the person applies the selection,
// requests a revision, rejects the patch or quits.
//
// The zero value reads keys from standard input (or from the controlling terminal when
// standard input is not one), draws on standard output in the alternate screen and edits
// with $VISUAL, else $EDITOR, else vi.
type Reviewer struct {
	// Input and Output are the terminal; nil means standard input and output.
	Input  io.Reader
	Output io.Writer
	// Editor is the command that edits a file for the "e" key, split at spaces
	// ("code --wait"); the file to edit is its last argument. Empty means $VISUAL, else
	// $EDITOR, else vi.
	Editor string
	// ProgramOptions are passed to the bubbletea program after the review's own, for
	// example tea.WithWindowSize for an output that is not a terminal.
	ProgramOptions []tea.ProgramOption
}

// Review runs the terminal review of s and returns once the session has settled.
//
// Applying, rejecting and quitting first end the program, so the terminal is the host's
// again before the session settles and its result is printed: the host's
// [applypatch.Review] returns as soon as the session settles. Applying prints the primary
// action on Output while the patch is committed; a submission that fails (a file changed
// meanwhile) reopens the review with the conflict shown (X7). Quitting, or an interrupt,
// aborts the review ("Error: Patch review aborted"); a terminal that cannot be opened is
// returned as an error, which settles the review with it.
func (r Reviewer) Review(ctx context.Context, s *applypatch.Session) error {
	m := newModel(ctx, s, r.editorCommand())
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if r.Input != nil {
		opts = append(opts, tea.WithInput(r.Input))
	}
	if r.Output != nil {
		opts = append(opts, tea.WithOutput(r.Output))
	}
	opts = append(opts, r.ProgramOptions...)
	for {
		_, err := tea.NewProgram(m, opts...).Run()
		switch {
		case s.View().State == applypatch.StateSettled:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(err, tea.ErrInterrupted):
			return fmt.Errorf("terminal review: %w", err)
		case err != nil:
			m.intent = intentAbort
		}
		if !m.settle(r.output()) {
			return nil
		}
	}
}

// output is where the progress of a submission is printed.
func (r Reviewer) output() io.Writer {
	if r.Output != nil {
		return r.Output
	}
	return os.Stdout
}

// editorCommand returns the editor command split into its words.
func (r Reviewer) editorCommand() []string {
	for _, e := range []string{r.Editor, os.Getenv("VISUAL"), os.Getenv("EDITOR")} {
		if f := strings.Fields(e); len(f) > 0 {
			return f
		}
	}
	return []string{"vi"}
}

// An intent is what the person chose when the program ended.
type intent int

const (
	intentNone   intent = iota // the session settled on its own
	intentSubmit               // C-c C-c: apply the selection, or send the feedback
	intentReject               // C-c C-k: reject the whole patch
	intentAbort                // q, or an interrupt: abort the review
)

// settle carries out the intent the program ended with, with the terminal released, and
// reports whether the review goes on: after a submission that failed, the program runs
// again and shows the conflict.
func (m *model) settle(out io.Writer) (again bool) {
	it := m.intent
	m.intent = intentNone
	switch it {
	case intentSubmit:
		fmt.Fprintf(out, "ApplyPatch · %s …\n", m.s.View().Action)
		_, err := m.s.Submit(m.ctx)
		v := m.s.View()
		if v.State == applypatch.StateSettled {
			return false
		}
		m.setStatus("Nothing was applied.")
		if v.Conflict == nil {
			m.fail(err) // refused before it started: say why
		}
		m.follow = true
		m.refresh()
		return true
	case intentReject:
		if err := m.s.Reject(); err == nil {
			return false
		}
	}
	m.s.Abort()
	return false
}
