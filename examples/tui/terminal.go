package main

import (
	"context"
	"fmt"
	"os"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/tui/tui"
)

// openTTY opens the controlling terminal, whatever standard input and output are.
func openTTY() (*os.File, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalReviewer is the review on the terminal: on standard input and output when both
// are one, else on the controlling terminal, so that "tui --json > result.json" draws the
// review on the screen and leaves only the result in the file, and "tui < patch.txt"
// still reads the keys from the keyboard. Without a terminal to draw on, the review is
// refused with a message saying so, and nothing is written.
func terminalReviewer(stdin, stdout *os.File, open func() (*os.File, error)) (applypatch.Reviewer, func()) {
	if isTerminal(stdin) && isTerminal(stdout) {
		return tui.Reviewer{}, func() {}
	}
	tty, err := open()
	if err != nil {
		return noTerminal{err}, func() {}
	}
	return tui.Reviewer{Input: tty, Output: tty}, func() { tty.Close() }
}

// noTerminal refuses the review when there is no terminal to draw it on.
type noTerminal struct{ err error }

// Review settles the review with the refusal.
func (n noTerminal) Review(context.Context, *applypatch.Session) error {
	return fmt.Errorf("no terminal to review on: standard input or output is redirected and the controlling terminal cannot be opened (%v); run tui from a terminal, or use applypatch --review-script", n.err)
}
