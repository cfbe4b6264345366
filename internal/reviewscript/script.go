// Package reviewscript plays review scripts: a text file of review actions that stands in
// for a person reviewing a patch, for the CLI's --review-script and for tests. A [Script]
// is an [applypatch.Reviewer] that drives the review [applypatch.Session] through its
// exported methods only, as any front end does.
//
// A script has one action a line; blank lines and lines starting with '#' are ignored,
// and a '#' after an action's last operand starts a comment (not in feedback text, which
// runs to the end of the line):
//
//	deselect PATH [HUNK]
//	select PATH [HUNK]          # a target with feedback: the confirm answer is yes
//	feedback PATH|* [HUNK] TEXT # * = whole patch; \n in TEXT is a newline, \\ a backslash
//	revise PATH FILE            # FILE (relative to the script) holds the edited result
//	submit | reject             # last line
//
// PATH is the path as authored in the payload (a Move's source or destination); a path
// with spaces is written as a Go string literal. HUNK is the changing-hunk number as the
// rows show it (after a revision, as the revised rows show it). In a feedback line on a
// PATH, a number after PATH followed by more text is the HUNK; a TEXT that starts with a
// number, or holds any other character, is written as a Go string literal. Whole-patch
// feedback has no HUNK. A revise FILE lies inside the script's directory.
//
// A submit that fails (a stale file, say) leaves the review open: it is reported to
// [Script.Log] and the script goes on, so a script can deselect the stale file and submit
// again. A submit that succeeds settles the review: lines after it are not played, and
// Log says so. The last action must be submit or reject, and reject ends the script.
package reviewscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/applypatch/applypatch"
)

// A Script is a parsed review script, ready to play on a review session.
type Script struct {
	// Name is the script's name in errors.
	Name string
	// Log, when set, receives a line for each submit that failed and left the review
	// open, and for lines a settled review did not play.
	Log io.Writer
	// actions are the script's actions in order.
	actions []action
}

// Load reads the review script name from fsys; the files of revise actions are read from
// fsys too, relative to the script's directory.
func Load(fsys fs.FS, name string) (*Script, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &Error{Name: name, Err: err}
	}
	return Parse(name, string(src), func(file string) (string, error) {
		full := path.Join(path.Dir(name), file)
		if path.IsAbs(file) || !fs.ValidPath(path.Clean(file)) {
			return "", errors.New("FILE must be a path relative to the script's directory, inside it")
		}
		b, err := fs.ReadFile(fsys, full)
		return string(b), err
	})
}

// Parse reads a review script from src; name names it in errors. readFile returns the
// content of a revise action's FILE; nil refuses revise actions.
func Parse(name, src string, readFile func(file string) (string, error)) (*Script, error) {
	sc := &Script{Name: name}
	src = strings.TrimPrefix(src, "\ufeff") // a byte-order mark some editors write
	for i, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseAction(line, readFile)
		if err != nil {
			return nil, &Error{Name: name, Line: i + 1, Err: err}
		}
		a.Line = i + 1
		if n := len(sc.actions); n > 0 && sc.actions[n-1].Verb == "reject" {
			return nil, &Error{Name: name, Line: a.Line, Err: errors.New("nothing can follow reject: it ends the review")}
		}
		sc.actions = append(sc.actions, a)
	}
	if n := len(sc.actions); n == 0 || sc.actions[n-1].Verb != "submit" && sc.actions[n-1].Verb != "reject" {
		return nil, &Error{Name: name, Err: errors.New("the last action must be submit or reject")}
	}
	return sc, nil
}

// Review plays the script on the session. It returns an [*Error] naming the line of an
// action the session refused.
func (sc *Script) Review(ctx context.Context, s *applypatch.Session) error {
	for i, a := range sc.actions {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := play(ctx, s, a)
		settled := s.View().State == applypatch.StateSettled
		switch {
		case settled && i+1 < len(sc.actions):
			err := &Error{Name: sc.Name, Line: sc.actions[i+1].Line,
				Err: fmt.Errorf("the review settled at line %d, so this and the later lines were not played", a.Line)}
			if sc.Log != nil { // the host has the result already; say what was skipped
				fmt.Fprintln(sc.Log, err)
			}
			return err
		case settled, err == nil:
		case a.Verb == "submit" && i+1 < len(sc.actions):
			if sc.Log != nil {
				fmt.Fprintf(sc.Log, "%s, line %d: submit: %v\nThe review is still open; the script goes on.\n", sc.Name, a.Line, err)
			}
		default:
			return &Error{Name: sc.Name, Line: a.Line, Err: fmt.Errorf("%s: %w", a.Verb, err)}
		}
	}
	return nil
}

// play runs one action.
func play(ctx context.Context, s *applypatch.Session, a action) error {
	switch a.Verb {
	case "submit":
		_, err := s.Submit(ctx)
		return err
	case "reject":
		return s.Reject()
	}
	t := applypatch.Target{}
	if a.Path != "*" {
		var err error
		if t, err = s.Find(a.Path, a.Hunk); err != nil {
			return err
		}
	}
	switch a.Verb {
	case "deselect":
		return s.Select(t, false, nil)
	case "select":
		return s.Select(t, true, applypatch.DiscardFeedback)
	case "feedback":
		return s.SetFeedback(t, a.Text)
	}
	rev, err := s.Revise(t)
	if err != nil {
		return err
	}
	if err := rev.Adopt(a.Text, applypatch.DiscardFeedback); err != nil {
		rev.Cancel()
		return err
	}
	return nil
}
