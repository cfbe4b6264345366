// Package cli is the applypatch command, importable so tests can run it in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// Exit codes (H5).
const (
	exitApplied    = 0
	exitRejected   = 1
	exitUsage      = 2
	exitIncomplete = 3
)

const usage = `usage: applypatch [flags] [PAYLOAD_FILE | PAYLOAD]

Applies a "*** Begin Patch" payload to a directory as one all-or-nothing transaction.
The payload comes from PAYLOAD_FILE, from the argument itself when it starts with
"*** Begin Patch", or from standard input.

Flags:
`

// config is the parsed command line.
type config struct {
	dir            string
	check          bool
	json           bool
	allowOutside   bool
	allowProtected bool
	encodings      encodingFlags
	args           []string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fl := flag.NewFlagSet("applypatch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	fl.StringVar(&cfg.dir, "C", ".", "the workspace `DIR`ectory payload paths are relative to")
	fl.BoolVar(&cfg.check, "check", false, "resolve the payload and report, writing nothing")
	fl.BoolVar(&cfg.json, "json", false, "print the result as JSON")
	fl.BoolVar(&cfg.allowOutside, "allow-outside", false, "allow paths outside the workspace")
	fl.BoolVar(&cfg.allowProtected, "allow-protected", false, "allow protected paths such as .git/")
	fl.Var(&cfg.encodings, "encoding", "declare the encoding of files matching `GLOB=NAME` (repeatable; the last match wins;\n"+
		"a GLOB without a slash matches file names), e.g. '*.txt=latin-1' or 'legacy/*.c=windows-1252'")
	if err := fl.Parse(args); err != nil {
		return nil, err
	}
	cfg.args = fl.Args()
	if len(cfg.args) > 1 {
		fl.Usage()
		return nil, errors.New("applypatch takes at most one payload argument")
	}
	return cfg, nil
}

// Run is the whole command: it parses args, reads the payload, applies it and returns the
// exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, nil)
}

// run is Run with a hook that wraps the workspace filesystem, so tests can inject faults
// into the writes inside the workspace.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, wrap func(afero.Fs) afero.Fs) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitApplied
	}
	if err != nil {
		fmt.Fprintln(stderr, "applypatch:", err)
		return exitUsage
	}
	payload, err := readPayload(cfg.args, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "applypatch:", err)
		return exitUsage
	}
	root, err := filepath.Abs(cfg.dir)
	if err != nil {
		fmt.Fprintln(stderr, "applypatch:", err)
		return exitUsage
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "applypatch: -C %s: not a directory\n", cfg.dir)
		return exitUsage
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		fmt.Fprintf(stderr, "applypatch: -C %s: %v\n", cfg.dir, errors.Unwrap(err))
		return exitUsage
	}
	defer confined.Close()
	var ws afero.Fs = confined
	if wrap != nil {
		ws = wrap(ws)
	}
	res, err := cfg.apply(root, ws, payload)
	return report(res, err, cfg, stdout, stderr)
}

// apply runs the payload on the workspace root, confined being an os.Root over it. Paths
// are resolved and classified on the operating system's filesystem, but every read and
// write inside the workspace goes
// through an os.Root over it (fs/rootfs), so a symbolic link swapped in between the last
// check and a write cannot lead the write out of the workspace. Only outside paths, which
// need --allow-outside, are written through the plain filesystem.
func (cfg *config) apply(root string, confined afero.Fs, payload string) (*applypatch.Result, error) {
	opts := &applypatch.Options{Workspace: root, WorkspaceFs: confined, Authorizer: cfg.authorizer(),
		Encoding: cfg.encodings.declared(root)}
	return execute(context.Background(), hostFs(), payload, opts, cfg.check)
}

// hostFs returns the operating system's filesystem, on which payload paths are resolved
// and classified and through which outside paths are written. A variable, so that tests
// can watch what reaches it.
var hostFs = afero.NewOsFs

// readPayload takes the payload from the argument, a file, or standard input (H5).
func readPayload(args []string, stdin io.Reader) (string, error) {
	if len(args) == 1 {
		if strings.HasPrefix(strings.TrimSpace(args[0]), "*** Begin Patch") {
			return args[0], nil
		}
		b, err := os.ReadFile(args[0])
		return string(b), err
	}
	b, err := io.ReadAll(stdin)
	if err == nil && len(b) == 0 {
		err = errors.New("no payload: give a payload file, the payload itself, or pipe it on standard input")
	}
	return string(b), err
}

// authorizer allows the classes the flags allow (F4). Forbidden paths never reach it:
// the library refuses them in every mode.
func (cfg *config) authorizer() applypatch.Authorizer {
	flags := []struct {
		class   applypatch.Class
		allowed bool
		flag    string
	}{
		{applypatch.Outside, cfg.allowOutside, "--allow-outside"},
		{applypatch.Protected, cfg.allowProtected, "--allow-protected"},
	}
	return applypatch.AuthorizerFunc(func(_ context.Context, _ applypatch.Mode, paths []applypatch.ClassifiedPath) error {
		var missing []string
		for _, f := range flags {
			if !f.allowed && slices.ContainsFunc(paths, func(p applypatch.ClassifiedPath) bool { return p.Class == f.class }) {
				missing = append(missing, fmt.Sprintf("%s paths need %s", f.class, f.flag))
			}
		}
		if len(missing) > 0 {
			return errors.New(strings.Join(missing, " and "))
		}
		return nil
	})
}

// execute applies the payload, or with check only resolves it.
func execute(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options, check bool) (*applypatch.Result, error) {
	if !check {
		return applypatch.Apply(ctx, fsys, payload, opts)
	}
	return applypatch.Check(ctx, fsys, payload, opts)
}

// report prints the result and chooses the exit code.
func report(res *applypatch.Result, err error, cfg *config, stdout, stderr io.Writer) int {
	if cfg.json {
		out := struct {
			*applypatch.Result
			Text    string `json:"text"`
			Summary string `json:"summary"`
		}{res, res.Text(), res.Summary()}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else if res.Status == applypatch.StatusError {
		fmt.Fprintln(stderr, res.Text())
	} else {
		fmt.Fprintln(stdout, res.Text())
	}
	var encErr *applypatch.EncodingError
	if errors.As(err, &encErr) && !encErr.Declared && encErr.Rune == 0 {
		fmt.Fprintln(stderr, "applypatch: declare the file's encoding with --encoding GLOB=NAME, e.g. --encoding '*.txt=latin-1'")
	}
	switch {
	case errors.Is(err, &applypatch.IncompleteRollbackError{}):
		return exitIncomplete
	case err != nil || res.Status == applypatch.StatusError:
		return exitRejected
	}
	return exitApplied
}
