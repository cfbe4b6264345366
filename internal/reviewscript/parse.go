package reviewscript

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// An action is one line of a review script.
type action struct {
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

// verbs says how each verb's operands are read.
var verbs = map[string]func(a *action, rest string, readFile func(string) (string, error)) error{
	"deselect": parseTargetOperands,
	"select":   parseTargetOperands,
	"feedback": parseFeedbackOperands,
	"revise":   parseReviseOperands,
	"submit":   parseNoOperands,
	"reject":   parseNoOperands,
}

func parseAction(line string, readFile func(string) (string, error)) (action, error) {
	verb, rest := line, ""
	if i := strings.IndexFunc(line, unicode.IsSpace); i >= 0 {
		verb, rest = line[:i], line[i:]
	}
	parse, ok := verbs[verb]
	if !ok {
		return action{}, fmt.Errorf("unknown action %q; the actions are deselect, select, feedback, revise, submit and reject", verb)
	}
	a := action{Verb: verb}
	return a, parse(&a, strings.TrimSpace(rest), readFile)
}

func parseNoOperands(a *action, rest string, _ func(string) (string, error)) error {
	if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
		return fmt.Errorf("%s takes no operands", a.Verb)
	}
	return nil
}

// parseTargetOperands reads "PATH [HUNK]".
func parseTargetOperands(a *action, rest string, _ func(string) (string, error)) error {
	p, rest, err := token(rest)
	if err != nil || p == "" || p == "*" {
		return fmt.Errorf("%s needs a PATH as authored in the payload, then an optional HUNK number", a.Verb)
	}
	a.Path = p
	tok, after, err := token(rest)
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
func parseFeedbackOperands(a *action, rest string, _ func(string) (string, error)) error {
	p, rest, err := token(rest)
	if err != nil || p == "" {
		return errors.New("feedback needs a PATH (or * for the whole patch), an optional HUNK number, then the TEXT")
	}
	a.Path = p
	if tok, after, err := token(rest); p != "*" && err == nil && strings.TrimSpace(after) != "" {
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
func parseReviseOperands(a *action, rest string, readFile func(string) (string, error)) error {
	p, rest, err := token(rest)
	if err != nil || p == "" || p == "*" {
		return errors.New("revise needs a PATH as authored in the payload, then the FILE holding the edited result")
	}
	file, rest, err := token(rest)
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

// token returns the first operand of s (a Go string literal or a run of
// non-space characters) and the rest.
func token(s string) (tok, rest string, err error) {
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
