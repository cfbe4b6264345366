// Command difftool runs one build of the applypatch CLI over a list of cases and writes a
// record of everything each case showed: the exit status, standard output and standard
// error of every run, and the tree it left (every path, its mode, its bytes). It is the
// recording half of .ci/differential, which runs it once per build over the same cases,
// at the same paths, in the same environment, and compares the records byte for byte;
// it is not part of the library or of the CLI.
//
// Usage:
//
//	difftool record -bin BIN -root DIR -out DIR [-sealer TESTBIN] [-timeout D] < CASES
//
// CASES has one case a line: NAME, a tab, KIND, a tab, PATH. KIND "dir" is a folder laid
// out as ../shared/conformance lays out a case (input/, patch.txt, optional outside/),
// run as its run.sh runs it; KIND "script" is a testscript file (testdata/*.txtar),
// whose commands are replayed. The record of NAME is written to OUT/NAME.rec; a script
// that cannot be replayed faithfully gets OUT/NAME.skip instead, with the reason, and a
// script whose own assertions do not hold of the replay gets OUT/NAME.check beside its
// record, listing them.
//
// Every case is laid out under DIR/c and run with HOME, XDG_STATE_HOME and TMPDIR under
// DIR, each made anew for the case; the state directory holds a fixed journal key, so
// sealed journal names are the same in every run. DIR is written as $ROOT in records.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "record" {
		fmt.Fprintln(os.Stderr, "usage: difftool record -bin BIN -root DIR -out DIR [-sealer TESTBIN] [-timeout D] < CASES")
		os.Exit(2)
	}
	fl := flag.NewFlagSet("record", flag.ExitOnError)
	bin := fl.String("bin", "", "the applypatch binary to run")
	root := fl.String("root", "", "the directory cases are laid out and run under (wiped first)")
	out := fl.String("out", "", "the directory records are written to")
	sealer := fl.String("sealer", "", "the root package's test binary, for sealjournal")
	timeout := fl.Duration("timeout", 60*time.Second, "how long one command may run")
	fl.Parse(os.Args[2:])
	if *bin == "" || *root == "" || *out == "" {
		fl.Usage()
		os.Exit(2)
	}
	r, err := newRecorder(*bin, *root, *out, *sealer, *timeout)
	if err != nil {
		fatal(err)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			fatal(fmt.Errorf("bad case line %q", sc.Text()))
		}
		if err := r.runCase(f[0], f[1], f[2]); err != nil {
			fatal(fmt.Errorf("%s: %w", f[0], err))
		}
	}
	if err := sc.Err(); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "difftool:", err)
	os.Exit(2)
}

// journalKey is the key every run finds in its state directory: fixed, so that a
// journal sealed by the harness and the names derived from it are the same in every run.
var journalKey = func() string {
	s := sha256.Sum256([]byte("applypatch .ci/differential journal key"))
	return hex.EncodeToString(s[:]) + "\n"
}()

type recorder struct {
	bin, root, out, sealer string
	timeout                time.Duration
	home, state, tmp, c    string
	base                   []string // the environment every command starts from
}

func newRecorder(bin, root, out, sealer string, timeout time.Duration) (*recorder, error) {
	var err error
	if bin, err = filepath.Abs(bin); err != nil {
		return nil, err
	}
	if sealer != "" {
		if sealer, err = filepath.Abs(sealer); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(root, 0o777); err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	r := &recorder{bin: bin, root: root, out: out, sealer: sealer, timeout: timeout,
		home: filepath.Join(root, "home"), state: filepath.Join(root, "state"),
		tmp: filepath.Join(root, "tmp"), c: filepath.Join(root, "c")}
	// Only what .ci/differential passed on (PATH, TZ, LC_ALL) is kept, and the variables
	// of the run itself replace any of the same name.
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_STATE_HOME", "TMPDIR", "PWD", "OLDPWD", "WORK":
		default:
			r.base = append(r.base, kv)
		}
	}
	r.base = append(r.base, "HOME="+r.home, "XDG_STATE_HOME="+r.state,
		"APPLYPATCH_TEST_STATE="+r.state)
	return r, nil
}

// reset makes the per-case directories anew: the case tree empty, HOME and TMPDIR
// empty, the state directory holding only the fixed journal key.
func (r *recorder) reset() error {
	for _, d := range []string{r.c, r.home, r.state, r.tmp} {
		if err := removeAll(d); err != nil {
			return err
		}
	}
	for _, d := range []string{r.c, r.home, r.tmp} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(r.state, "applypatch"), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.state, "applypatch", "journal.key"), []byte(journalKey), 0o600)
}

func (r *recorder) runCase(name, kind, path string) error {
	if err := r.reset(); err != nil {
		return err
	}
	rec := newRecord(r.root)
	var err error
	switch kind {
	case "dir":
		err = r.runDir(rec, path)
	case "script":
		var skip string
		var failed []string
		skip, failed, err = r.runScript(rec, path)
		if err == nil && skip != "" {
			return r.write(name+".skip", []byte(skip+"\n"))
		}
		if err == nil && len(failed) > 0 {
			err = r.write(name+".check", []byte(rec.norm(strings.Join(failed, "\n"))+"\n"))
		}
	default:
		err = fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		return err
	}
	return r.write(name+".rec", rec.bytes())
}

func (r *recorder) write(name string, data []byte) error {
	p := filepath.Join(r.out, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o666)
}

// runDir runs a conformance-shaped case as ../shared/conformance/run.sh does: the CLI,
// with no argument, in a copy of input/ at SUITE/CASE, with patch.txt on standard input
// and outside/ copied to SUITE/outside-CASE beside it.
func (r *recorder) runDir(rec *record, dir string) error {
	suite, cname := filepath.Base(filepath.Dir(dir)), filepath.Base(dir)
	work := filepath.Join(r.c, suite, cname)
	outside := filepath.Join(r.c, suite, "outside-"+cname)
	if err := os.MkdirAll(work, 0o777); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "input")); err == nil {
		if err := copyTree(filepath.Join(dir, "input"), work); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "outside")); err == nil {
		if err := copyTree(filepath.Join(dir, "outside"), outside); err != nil {
			return err
		}
	}
	rec.subst(work, "$WORK")
	stdin, err := os.Open(filepath.Join(dir, "patch.txt"))
	if err != nil {
		return err
	}
	defer stdin.Close()
	env := append(append([]string(nil), r.base...), "TMPDIR="+r.tmp, "PWD="+work)
	rec.line("> applypatch < patch.txt")
	r.exec(rec, work, env, stdin, r.bin)
	rec.tree("$WORK", work)
	rec.tree("outside", outside)
	rec.tree("state", r.state)
	rec.tree("home", r.home)
	rec.tree("tmp", r.tmp)
	rec.contents(work)
	rec.contents(outside)
	return nil
}

// exec runs one command and records its exit status, standard output and standard
// error, which it returns (the outputs as they were).
func (r *recorder) exec(rec *record, dir string, env []string, stdin io.Reader, name string, args ...string) (status, stdout, stderr string) {
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, stdin
	var outb, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &outb, &errb
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		status = fmt.Sprintf("killed after %v", r.timeout)
	case err == nil:
		status = "0"
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = "signal " + ws.Signal().String()
		} else {
			status = fmt.Sprint(ee.ExitCode())
		}
	default:
		status = "cannot run: " + err.Error()
	}
	rec.line("exit " + status)
	rec.output("stdout", outb.String())
	rec.output("stderr", errb.String())
	return status, outb.String(), errb.String()
}
