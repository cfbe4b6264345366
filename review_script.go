package applypatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// A ScriptReviewer is a [Reviewer] that plays a review script: tests, hosts with review
// policies and the CLI's --review-script use it. A script has one action a line; blank
// lines and lines starting with '#' are ignored, and a '#' after an action's last operand
// starts a comment (not in feedback text, which runs to the end of the line):
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
// A submit that fails (a stale file, say) leaves the review open: it is reported to Log
// and the script goes on, so a script can deselect the stale file and submit again. A
// submit that succeeds settles the review: lines after it are not played, and Log says
// so. The last action must be submit or reject, and reject ends the script.
type ScriptReviewer struct {
	// Name is the script's name in errors.
	Name string
	// Actions are the script's actions in order.
	actions []scriptAction
	// Log, when set, receives a line for each submit that failed and left the review open.
	Log io.Writer
}

// A scriptAction is one line of a review script.
type scriptAction struct {
	// Line is the 1-based line of the script.
	Line int
	// Verb is "deselect", "select", "feedback", "revise", "submit" or "reject".
	Verb string
	// Path is the path as authored, or "*" for the whole patch.
	Path string
	// Hunk is the changing-hunk number, or 0 for the whole file.
	Hunk int
	// Text is the feedback text, or the revised file's content.
	Text string
}

// LoadReviewScript reads the review script name from fsys; the files of revise actions
// are read from fsys too, relative to the script's directory.
func LoadReviewScript(fsys fs.FS, name string) (*ScriptReviewer, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, &ScriptError{Name: name, Err: err}
	}
	return ParseReviewScript(name, string(src), func(file string) (string, error) {
		full := path.Join(path.Dir(name), file)
		if path.IsAbs(file) || !fs.ValidPath(path.Clean(file)) {
			return "", errors.New("FILE must be a path relative to the script's directory, inside it")
		}
		b, err := fs.ReadFile(fsys, full)
		return string(b), err
	})
}

// ParseReviewScript reads a review script (see [ScriptReviewer]). readFile returns the
// content of a revise action's FILE; nil refuses revise actions.
func ParseReviewScript(name, src string, readFile func(file string) (string, error)) (*ScriptReviewer, error) {
	sr := &ScriptReviewer{Name: name}
	src = strings.TrimPrefix(src, "\ufeff") // a byte-order mark some editors write
	for i, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := parseAction(line, readFile)
		if err != nil {
			return nil, &ScriptError{Name: name, Line: i + 1, Err: err}
		}
		a.Line = i + 1
		if n := len(sr.actions); n > 0 && sr.actions[n-1].Verb == "reject" {
			return nil, &ScriptError{Name: name, Line: a.Line, Err: errors.New("nothing can follow reject: it ends the review")}
		}
		sr.actions = append(sr.actions, a)
	}
	if n := len(sr.actions); n == 0 || sr.actions[n-1].Verb != "submit" && sr.actions[n-1].Verb != "reject" {
		return nil, &ScriptError{Name: name, Err: errors.New("the last action must be submit or reject")}
	}
	return sr, nil
}

// scriptVerbs says how each verb's operands are read.
var scriptVerbs = map[string]func(a *scriptAction, rest string, readFile func(string) (string, error)) error{
	"deselect": parseTargetOperands,
	"select":   parseTargetOperands,
	"feedback": parseFeedbackOperands,
	"revise":   parseReviseOperands,
	"submit":   parseNoOperands,
	"reject":   parseNoOperands,
}

func parseAction(line string, readFile func(string) (string, error)) (scriptAction, error) {
	verb, rest := line, ""
	if i := strings.IndexFunc(line, unicode.IsSpace); i >= 0 {
		verb, rest = line[:i], line[i:]
	}
	parse, ok := scriptVerbs[verb]
	if !ok {
		return scriptAction{}, fmt.Errorf("unknown action %q; the actions are deselect, select, feedback, revise, submit and reject", verb)
	}
	a := scriptAction{Verb: verb}
	return a, parse(&a, strings.TrimSpace(rest), readFile)
}

func parseNoOperands(a *scriptAction, rest string, _ func(string) (string, error)) error {
	if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
		return fmt.Errorf("%s takes no operands", a.Verb)
	}
	return nil
}

// parseTargetOperands reads "PATH [HUNK]".
func parseTargetOperands(a *scriptAction, rest string, _ func(string) (string, error)) error {
	p, rest, err := scriptToken(rest)
	if err != nil || p == "" || p == "*" {
		return fmt.Errorf("%s needs a PATH as authored in the payload, then an optional HUNK number", a.Verb)
	}
	a.Path = p
	tok, after, err := scriptToken(rest)
	if err != nil {
		return err
	}
	if tok != "" && !strings.HasPrefix(tok, "#") {
		if a.Hunk, err = hunkNumber(tok); err != nil {
			return err
		}
		rest = after
	}
	return parseNoOperands(a, rest, nil)
}

// parseFeedbackOperands reads "PATH|* [HUNK] TEXT".
func parseFeedbackOperands(a *scriptAction, rest string, _ func(string) (string, error)) error {
	p, rest, err := scriptToken(rest)
	if err != nil || p == "" {
		return errors.New("feedback needs a PATH (or * for the whole patch), an optional HUNK number, then the TEXT")
	}
	a.Path = p
	if tok, after, err := scriptToken(rest); p != "*" && err == nil && strings.TrimSpace(after) != "" {
		if n, err := hunkNumber(tok); err == nil {
			a.Hunk, rest = n, after
		}
	}
	rest = strings.TrimSpace(rest)
	if text, err := strconv.Unquote(rest); err == nil && strings.HasPrefix(rest, `"`) {
		a.Text = text // a quoted TEXT may start with a number, or hold any character
	} else {
		a.Text = unescapeFeedback(rest)
	}
	if strings.TrimSpace(a.Text) == "" {
		return errors.New("feedback needs a TEXT after the target")
	}
	return nil
}

// parseReviseOperands reads "PATH FILE" and the file's content.
func parseReviseOperands(a *scriptAction, rest string, readFile func(string) (string, error)) error {
	p, rest, err := scriptToken(rest)
	if err != nil || p == "" || p == "*" {
		return errors.New("revise needs a PATH as authored in the payload, then the FILE holding the edited result")
	}
	file, rest, err := scriptToken(rest)
	if err != nil || file == "" {
		return errors.New("revise needs the FILE holding the edited result after the PATH")
	}
	if err := parseNoOperands(a, rest, nil); err != nil {
		return err
	}
	if readFile == nil {
		return errors.New("revise is not available here: the script has no directory to read FILE from")
	}
	a.Path = p
	if a.Text, err = readFile(file); err != nil {
		return fmt.Errorf("revise: cannot read %s: %w", file, err)
	}
	return nil
}

// scriptToken returns the first operand of s (a Go string literal or a run of
// non-space characters) and the rest.
func scriptToken(s string) (tok, rest string, err error) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", fmt.Errorf("unterminated quoted path %s", s)
		}
		tok, _ = strconv.Unquote(q)
		return tok, s[len(q):], nil
	}
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return s, "", nil
	}
	return s[:i], s[i:], nil
}

func hunkNumber(tok string) (int, error) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a hunk number (changing hunks count from 1)", tok)
	}
	return n, nil
}

// unescapeFeedback turns "\n" into a newline and "\\" into a backslash.
func unescapeFeedback(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n").Replace(s)
}

// Review plays the script on the session.
func (sr *ScriptReviewer) Review(ctx context.Context, s *Session) error {
	for i, a := range sr.actions {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := sr.play(ctx, s, a)
		switch {
		case s.State() == StateSettled && i+1 < len(sr.actions):
			err := &ScriptError{Name: sr.Name, Line: sr.actions[i+1].Line,
				Err: fmt.Errorf("the review settled at line %d, so this and the later lines were not played", a.Line)}
			if sr.Log != nil { // the host has the result already; say what was skipped
				fmt.Fprintln(sr.Log, err)
			}
			return err
		case s.State() == StateSettled, err == nil:
		case a.Verb == "submit" && i+1 < len(sr.actions):
			if sr.Log != nil {
				fmt.Fprintf(sr.Log, "%s, line %d: submit: %v\nThe review is still open; the script goes on.\n", sr.Name, a.Line, err)
			}
		default:
			return &ScriptError{Name: sr.Name, Line: a.Line, Err: fmt.Errorf("%s: %w", a.Verb, err)}
		}
	}
	return nil
}

// play runs one action.
func (sr *ScriptReviewer) play(ctx context.Context, s *Session, a scriptAction) error {
	switch a.Verb {
	case "submit":
		_, err := s.Submit(ctx)
		return err
	case "reject":
		return s.Reject()
	}
	t := WholePatch
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
		return s.Select(t, true, DiscardFeedback)
	case "feedback":
		return s.SetFeedback(t, a.Text)
	}
	rev, err := s.Revise(t)
	if err != nil {
		return err
	}
	if err := rev.Adopt(a.Text, DiscardFeedback); err != nil {
		rev.Cancel()
		return err
	}
	return nil
}
