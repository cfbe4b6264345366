package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/applypatch/applypatch/internal/scriptcmd"
)

// lookPath finds a program in the script's PATH, not the harness's.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in the script's PATH", name)
}

// do runs one command; its error is recorded, and the script goes on.
func (s *script) do(args []string) error {
	c, args := args[0], args[1:]
	switch c {
	case "exec":
		if len(args) == 0 {
			return errors.New("usage: exec program [args...]")
		}
		prog, err := lookPath(args[0], s.getenv("PATH"))
		if err != nil {
			s.status = "not found"
			return err
		}
		env := append(append([]string(nil), s.env...), "PWD="+s.cd)
		s.status, s.stdout, s.stderr = s.r.exec(s.rec, s.cd, env, strings.NewReader(s.stdin), prog, args[1:]...)
		s.stdin = ""
		return nil
	case "cd":
		if len(args) != 1 {
			return errors.New("usage: cd dir")
		}
		d := s.abs(args[0])
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
		s.cd = d
	case "cp":
		if len(args) < 2 {
			return errors.New("usage: cp src... dst")
		}
		dst := s.abs(args[len(args)-1])
		fi, err := os.Stat(dst)
		dstDir := err == nil && fi.IsDir()
		if len(args) > 2 && !dstDir {
			return fmt.Errorf("cp: destination %s is not a directory", dst)
		}
		for _, a := range args[:len(args)-1] {
			var data []byte
			mode := fs.FileMode(0o666)
			src := a
			switch a {
			case "stdout":
				data = []byte(s.stdout)
			case "stderr":
				data = []byte(s.stderr)
			default:
				src = s.abs(a)
				fi, err := os.Stat(src)
				if err != nil {
					return err
				}
				mode = fi.Mode() & 0o777
				if data, err = os.ReadFile(src); err != nil {
					return err
				}
			}
			to := dst
			if dstDir {
				to = filepath.Join(dst, filepath.Base(src))
			}
			if err := os.WriteFile(to, data, mode); err != nil {
				return err
			}
		}
	case "mkdir":
		for _, a := range args {
			if err := os.MkdirAll(s.abs(a), 0o777); err != nil {
				return err
			}
		}
	case "rm":
		for _, a := range args {
			removeAll(s.abs(a))
			if err := os.RemoveAll(s.abs(a)); err != nil {
				return err
			}
		}
	case "mv":
		if len(args) != 2 {
			return errors.New("usage: mv old new")
		}
		return os.Rename(s.abs(args[0]), s.abs(args[1]))
	case "chmod":
		if len(args) < 2 {
			return errors.New("usage: chmod perm path [path ...]")
		}
		perm, err := strconv.ParseUint(args[0], 8, 32)
		if err != nil || perm&uint64(fs.ModePerm) != perm {
			return fmt.Errorf("invalid mode: %s", args[0])
		}
		for _, a := range args[1:] {
			if err := os.Chmod(s.abs(a), fs.FileMode(perm)); err != nil {
				return err
			}
		}
	case "symlink":
		if len(args) != 3 || args[1] != "->" {
			return errors.New("usage: symlink file -> target")
		}
		return os.Symlink(args[2], s.abs(args[0]))
	case "stdin":
		if len(args) != 1 {
			return errors.New("usage: stdin filename")
		}
		switch args[0] {
		case "stdout":
			s.stdin = s.stdout
		case "stderr":
			s.stdin = s.stderr
		default:
			b, err := os.ReadFile(s.abs(args[0]))
			if err != nil {
				return err
			}
			s.stdin = string(b)
		}
	case "env":
		for _, kv := range args {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.setenv(k, v)
			}
		}
	default:
		return s.custom(c, args)
	}
	return nil
}

// custom runs the commands the root package's testscript test adds
// (testscript_cmds_test.go), as it runs them.
func (s *script) custom(c string, args []string) error {
	switch c {
	case "expand":
		for _, name := range args {
			if err := scriptcmd.Expand(s.abs(name), s.getenv); err != nil {
				return err
			}
		}
	case "printf":
		if len(args) != 2 {
			return errors.New("usage: printf FILE TEXT")
		}
		return scriptcmd.Printf(s.abs(args[0]), args[1])
	case "crlf":
		for _, name := range args {
			if err := scriptcmd.CRLF(s.abs(name)); err != nil {
				return err
			}
		}
	case "stamp":
		for _, name := range args {
			if err := scriptcmd.Stamp(s.abs(name)); err != nil {
				return err
			}
		}
	case "stamped":
		// Whether a file kept its stamped time is what the script asserts, and the
		// one thing the tree's manifest leaves out: record it.
		for _, name := range args {
			fi, err := os.Stat(s.abs(name))
			if err != nil {
				return err
			}
			s.rec.line(fmt.Sprintf("%s keeps its stamped time: %v", name, fi.ModTime().Equal(scriptcmd.StampTime)))
		}
	case "listing":
		if len(args) != 2 {
			return errors.New("usage: listing DIR FILE")
		}
		return scriptcmd.Listing(s.abs(args[0]), s.abs(args[1]))
	case "sealjournal":
		return s.sealJournal(args)
	default:
		return fmt.Errorf("unknown command %q", c)
	}
	return nil
}

// sealJournal does what the root package's sealjournal command does, with the sealing
// itself (applypatch.SealJournal, test-only) done by the root package's test binary,
// under the run's fixed key.
func (s *script) sealJournal(args []string) error {
	cut := len(args) == 2 && args[0] == "-cut"
	if cut {
		args = args[1:]
	}
	if len(args) != 1 {
		return errors.New("usage: sealjournal [-cut] DIR")
	}
	if s.r.sealer == "" {
		return errors.New("sealjournal needs -sealer")
	}
	src := s.abs(args[0])
	rec, err := os.ReadFile(filepath.Join(src, "record.json"))
	if err != nil {
		return err
	}
	if cut {
		id := regexp.MustCompile(`"id":"([0-9a-f]+)"`).FindSubmatch(rec)
		if id == nil {
			return errors.New("sealjournal -cut: the record names no id")
		}
		rec = []byte(`{"version":2,"id":"` + string(id[1]) + `"}`)
	}
	name, data, err := s.r.seal(rec)
	if err != nil {
		return err
	}
	if cut {
		data = data[:len(data)/2]
	}
	dir := s.abs(name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != "record.json" {
			if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.json"), data, 0o600); err != nil {
		return err
	}
	if err := os.RemoveAll(src); err != nil {
		return err
	}
	s.setenv("JOURNAL", name)
	return nil
}

// seal has the root package's test binary seal a journal record with the key in the
// run's state directory (TestDifferentialSeal, in differential_seal_test.go).
func (r *recorder) seal(record []byte) (name string, data []byte, err error) {
	dir, err := os.MkdirTemp(r.root, "seal-")
	if err != nil {
		return "", nil, err
	}
	defer removeAll(dir)
	in := filepath.Join(dir, "record.json")
	if err := os.WriteFile(in, record, 0o600); err != nil {
		return "", nil, err
	}
	cmd := exec.Command(r.sealer, "-test.run=^TestDifferentialSeal$", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), r.base...), "TMPDIR="+dir, "APPLYPATCH_DIFF_SEAL="+in)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", nil, fmt.Errorf("sealing: %v\n%s", err, out)
	}
	n, err := os.ReadFile(in + ".name")
	if err != nil {
		return "", nil, fmt.Errorf("sealing: %w", err)
	}
	data, err = os.ReadFile(in + ".sealed")
	return string(n), data, err
}
