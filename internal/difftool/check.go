package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/scriptcmd"
)

// check evaluates one assertion of a script (cmp, cmpenv, exists, stdout, stderr, grep,
// stamped, and whether an exec succeeded as its ! or ? prefix says) against the replay,
// as testscript would, and returns what failed. The checks do not go into the record:
// they show that the replay is the run the script describes, since a replay of a build
// whose TestScripts pass should fail none of them.
func (s *script) check(neg bool, args []string) error {
	c, args := args[0], args[1:]
	switch c {
	case "stdout", "stderr", "grep":
		text := s.stdout
		if c == "stderr" {
			text = s.stderr
		}
		n := 0
		if len(args) > 0 && strings.HasPrefix(args[0], "-count=") {
			var err error
			if n, err = strconv.Atoi(strings.TrimPrefix(args[0], "-count=")); err != nil {
				return err
			}
			args = args[1:]
		}
		want := 1
		if c == "grep" {
			want = 2
		}
		if len(args) != want {
			return fmt.Errorf("usage: %s [-count=N] pattern", c)
		}
		re, err := regexp.Compile("(?m)" + args[0])
		if err != nil {
			return err
		}
		if c == "grep" {
			b, err := os.ReadFile(s.abs(args[1]))
			if err != nil {
				return err
			}
			text = string(b)
		}
		switch {
		case neg && re.MatchString(text):
			return fmt.Errorf("%s: unexpected match for %#q", c, args[0])
		case !neg && !re.MatchString(text):
			return fmt.Errorf("%s: no match for %#q", c, args[0])
		case !neg && n > 0 && len(re.FindAllString(text, -1)) != n:
			return fmt.Errorf("%s: %d matches for %#q, want %d", c, len(re.FindAllString(text, -1)), args[0], n)
		}
	case "cmp", "cmpenv":
		if len(args) != 2 {
			return fmt.Errorf("usage: %s file1 file2", c)
		}
		var text1 string
		switch args[0] {
		case "stdout":
			text1 = s.stdout
		case "stderr":
			text1 = s.stderr
		default:
			b, err := os.ReadFile(s.abs(args[0]))
			if err != nil {
				return err
			}
			text1 = string(b)
		}
		b, err := os.ReadFile(s.abs(args[1]))
		if err != nil {
			return err
		}
		text2 := string(b)
		if c == "cmpenv" {
			text2 = s.expand(text2)
		}
		if (text1 == text2) == neg {
			return fmt.Errorf("%s %s %s: equal is %v", c, args[0], args[1], text1 == text2)
		}
	case "exists":
		readonly := len(args) > 0 && args[0] == "-readonly"
		if readonly {
			args = args[1:]
		}
		for _, f := range args {
			fi, err := os.Stat(s.abs(f))
			switch {
			case err == nil && neg:
				return fmt.Errorf("%s unexpectedly exists", f)
			case err != nil && !neg:
				return fmt.Errorf("%s does not exist", f)
			case err == nil && readonly && fi.Mode()&0o222 != 0:
				return fmt.Errorf("%s exists but is writable", f)
			}
		}
	case "stamped":
		for _, f := range args {
			fi, err := os.Stat(s.abs(f))
			if err != nil {
				return err
			}
			if fi.ModTime().Equal(scriptcmd.StampTime) == neg {
				return fmt.Errorf("stamped %s: kept is %v", f, !neg)
			}
		}
	}
	return nil
}
