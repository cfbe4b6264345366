package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// A script replays a testscript file (github.com/rogpeppe/go-internal/testscript) as
// the root package's TestScripts runs it: the archive's files extracted into $WORK,
// then each line of the script in order, in the directory cd leaves. Every exec runs
// (the CLI as "applypatch", found first in PATH, and any other program) and is recorded;
// so are the commands that change the tree (cp, mkdir, rm, mv, chmod, symlink, printf,
// crlf, expand, stamp, listing, sealjournal) and those that set what the next exec gets
// (stdin, env, cd). Assertions (cmp, stdout, exists, ...) put nothing in the record,
// which holds what they look at; they are evaluated only to show that the replay is
// the run the script describes (see check), and the script goes on past any that fails.
// A script that needs what cannot be replayed here (a background exec, an unknown
// command or condition) is skipped, with the reason.
type script struct {
	r      *recorder
	failed []string // the assertions the replay fails (see check)
	rec    *record
	work   string
	cd     string
	env    []string // in order; a later entry of a name wins, as in testscript
	stdin  string
	status string // of the last exec
	stdout string
	stderr string
}

// assertions are the commands that only check: the record holds what they check, and
// check evaluates them.
var assertions = map[string]bool{
	"cmp": true, "cmpenv": true, "exists": true, "stdout": true, "stderr": true,
	"grep": true,
}

// runScript replays a script into rec. It returns why the script is skipped, if it is,
// and the assertions the replay fails.
func (r *recorder) runScript(rec *record, file string) (skip string, failed []string, err error) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		return "", nil, err
	}
	name := strings.TrimSuffix(filepath.Base(file), ".txtar")
	work := filepath.Join(r.c, "script-"+name)
	s := &script{r: r, rec: rec, work: work, cd: work}
	rec.subst(work, "$WORK")
	if err := os.MkdirAll(filepath.Join(work, ".tmp"), 0o777); err != nil {
		return "", nil, err
	}
	// The environment testscript gives a script (WORK first), then what the root
	// package's Setup adds (statetest.Env), then what .ci/differential fixes.
	s.env = []string{"WORK=" + work, "PATH=" + filepath.Dir(r.bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GOTRACEBACK=system", "HOME=" + r.home, "TMPDIR=" + filepath.Join(work, ".tmp"),
		"devnull=" + os.DevNull, "/=" + string(os.PathSeparator), ":=" + string(os.PathListSeparator),
		"$=$", "exe=", "XDG_STATE_HOME=" + r.state, "APPLYPATCH_TEST_STATE=" + r.state}
	for _, kv := range r.base {
		if k, _, _ := strings.Cut(kv, "="); k == "TZ" || k == "LC_ALL" {
			s.env = append(s.env, kv)
		}
	}
	for _, f := range a.Files {
		p := s.abs(s.expand(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			return "", nil, err
		}
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return "", nil, err
		}
		_, err = fh.Write(f.Data)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", nil, err
		}
	}
	// A first pass refuses what cannot be replayed, before anything runs.
	lines := strings.Split(string(a.Comment), "\n")
	for n, line := range lines {
		if why := s.unsupported(line); why != "" {
			return fmt.Sprintf("line %d: %s", n+1, why), nil, nil
		}
	}
	for n, line := range lines {
		if strings.HasPrefix(line, "#") {
			continue
		}
		args, err := s.parse(line)
		if err != nil {
			return fmt.Sprintf("line %d: %v", n+1, err), nil, nil
		}
		if len(args) == 0 {
			continue
		}
		run := true
		for len(args) > 0 && strings.HasPrefix(args[0], "[") && strings.HasSuffix(args[0], "]") {
			ok, err := s.condition(args[0])
			if err != nil {
				return fmt.Sprintf("line %d: %v", n+1, err), nil, nil
			}
			run = run && ok
			args = args[1:]
		}
		if !run {
			continue
		}
		neg, maybe := false, false
		if len(args) > 0 && (args[0] == "!" || args[0] == "?") {
			neg, maybe = args[0] == "!", args[0] == "?"
			args = args[1:]
		}
		if len(args) == 0 {
			continue
		}
		if args[0] == "skip" {
			return fmt.Sprintf("line %d: the script skips itself here: %s", n+1, strings.Join(args[1:], " ")), nil, nil
		}
		if args[0] == "stop" {
			break
		}
		if assertions[args[0]] || args[0] == "stamped" {
			if err := s.check(neg, args); err != nil {
				s.failed = append(s.failed, fmt.Sprintf("line %d: %s: %v", n+1, line, err))
			}
			if args[0] != "stamped" {
				continue
			}
		}
		rec.line(fmt.Sprintf("> [%d] %s", n+1, line))
		if err := s.do(args); err != nil {
			rec.line("error: " + err.Error())
			if !maybe {
				s.failed = append(s.failed, fmt.Sprintf("line %d: %s: %v", n+1, line, err))
			}
		}
		if args[0] == "exec" {
			if ok := s.status == "0"; ok == neg && !maybe {
				s.failed = append(s.failed, fmt.Sprintf("line %d: %s: exit %s", n+1, line, s.status))
			}
			// The whole case directory: a script may write beside $WORK (../u.diff).
			rec.tree("$ROOT/c", r.c)
		}
	}
	rec.line("> end")
	rec.tree("$ROOT/c", r.c)
	rec.tree("state", r.state)
	rec.tree("home", r.home)
	rec.contents(r.c)
	return "", s.failed, nil
}

// unsupported says why a line cannot be replayed, if it cannot.
func (s *script) unsupported(line string) string {
	if strings.HasPrefix(line, "#") {
		return ""
	}
	args, err := s.parse(line)
	if err != nil {
		return err.Error()
	}
	for len(args) > 0 && strings.HasPrefix(args[0], "[") && strings.HasSuffix(args[0], "]") {
		if _, err := s.condition(args[0]); err != nil {
			return err.Error()
		}
		args = args[1:]
	}
	if len(args) > 0 && (args[0] == "!" || args[0] == "?") {
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	switch c := args[0]; {
	case assertions[c], c == "skip", c == "stop":
	case c == "exec":
		if last := args[len(args)-1]; strings.HasPrefix(last, "&") && strings.HasSuffix(last, "&") {
			return "a background exec (" + last + ")"
		}
	case c == "wait", c == "ttyin", c == "unquote":
		return "the command " + c + " is not replayed"
	default:
		if _, ok := replayed[c]; !ok {
			return "the command " + c + " is not replayed"
		}
	}
	return ""
}

var replayed = map[string]struct{}{
	"exec": {}, "cd": {}, "cp": {}, "mkdir": {}, "rm": {}, "mv": {}, "chmod": {},
	"symlink": {}, "stdin": {}, "env": {}, "printf": {}, "crlf": {}, "expand": {},
	"stamp": {}, "stamped": {}, "listing": {}, "sealjournal": {},
}

func (s *script) getenv(k string) string {
	for i := len(s.env) - 1; i >= 0; i-- {
		if name, v, _ := strings.Cut(s.env[i], "="); name == k {
			return v
		}
	}
	return ""
}

func (s *script) setenv(k, v string) { s.env = append(s.env, k+"="+v) }

func (s *script) expand(t string) string {
	return os.Expand(t, func(k string) string {
		if k1, ok := strings.CutSuffix(k, "@R"); ok {
			return regexp.QuoteMeta(s.getenv(k1))
		}
		return s.getenv(k)
	})
}

func (s *script) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.cd, p)
}

// parse splits a line into words as testscript does: spaces separate, # ends the line,
// single quotes keep spaces and stop expansion (two of them inside are one), and $VAR
// outside them is expanded.
func (s *script) parse(line string) ([]string, error) {
	var args []string
	arg, start, quoted := "", -1, false
	for i := 0; ; i++ {
		if !quoted && (i >= len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '#') {
			if start >= 0 {
				arg += s.expand(line[start:i])
				args = append(args, arg)
				start, arg = -1, ""
			}
			if i >= len(line) || line[i] == '#' {
				break
			}
			continue
		}
		if i >= len(line) {
			return nil, errors.New("unterminated quoted argument")
		}
		if line[i] == '\'' {
			if !quoted {
				if start >= 0 {
					arg += s.expand(line[start:i])
				}
				start, quoted = i+1, true
				continue
			}
			if i+1 < len(line) && line[i+1] == '\'' {
				arg += line[start:i]
				start = i + 1
				i++
				continue
			}
			arg += line[start:i]
			start, quoted = i+1, false
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return args, nil
}

// condition evaluates [cond] for the conditions the scripts use.
func (s *script) condition(word string) (bool, error) {
	cond := strings.TrimSpace(word[1 : len(word)-1])
	want := true
	if c, ok := strings.CutPrefix(cond, "!"); ok {
		want, cond = false, strings.TrimSpace(c)
	}
	var got bool
	switch {
	case cond == "unix":
		got = runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	case cond == "windows", cond == "linux", cond == "darwin", cond == "freebsd", cond == "openbsd", cond == "netbsd", cond == "plan9":
		got = cond == runtime.GOOS
	case strings.HasPrefix(cond, "exec:"):
		_, err := lookPath(strings.TrimPrefix(cond, "exec:"), s.getenv("PATH"))
		got = err == nil
	case cond == "symlink", cond == "link":
		got = runtime.GOOS != "windows"
	default:
		return false, fmt.Errorf("the condition [%s] is not replayed", cond)
	}
	return got == want, nil
}
