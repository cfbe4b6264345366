// Command tui reviews an applypatch payload in the terminal and applies what the person
// chose, printing the model-visible result at the end.
//
//	go run . [-C DIR] [--allow-outside] [--allow-protected] [--json] [--stream] [--no-history] [PAYLOAD_FILE | PAYLOAD]
//	go run . [-C DIR] [--json] --undo | --redo
//
// The payload comes from PAYLOAD_FILE, from the argument itself when it starts with
// "*** Begin Patch", or from standard input (the keys are then read from the terminal).
// With --stream it is read from standard input as it arrives, a model writing it, and
// previewed on standard error as each hunk completes, placed where it would land; the
// review starts when the input ends. What is applied is recorded in the workspace's
// history, which the applypatch command shares; --undo and --redo review the undo of the
// newest change, or applying again the one undone last, as a patch is reviewed.
// Exit codes are the applypatch command's: 0 applied or revision requested, 1 rejected or
// refused (nothing written), 2 usage, 3 incomplete rollback.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// Exit codes, as the applypatch command's (H5).
const (
	exitApplied    = 0
	exitRejected   = 1
	exitUsage      = 2
	exitIncomplete = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	rv, closeTerminal := terminalReviewer(os.Stdin, os.Stdout, openTTY)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, rv)
	closeTerminal()
	stop()
	os.Exit(code)
}

// config is the parsed command line.
type config struct {
	dir            string
	allowOutside   bool
	allowProtected bool
	json           bool
	stream         bool
	undo, redo     bool
	noHistory      bool
	args           []string
}

// errVersion is a request for the version, printed on standard output.
var errVersion = errors.New("version requested")

// parseFlags reads the command line. -h and --help print the usage on stdout and return
// flag.ErrHelp; --version prints the version there and returns errVersion.
func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fl := flag.NewFlagSet("tui", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: tui [flags] [PAYLOAD_FILE | PAYLOAD]\n       tui [flags] --undo | --redo\n\n"+
			"Reviews a \"*** Begin Patch\" payload in the terminal, then applies what was chosen.\n"+
			"With --undo or --redo it reviews the same way the undo of the newest change applied in the\n"+
			"workspace, or applying again the one undone last.\n\nFlags:")
		fl.PrintDefaults()
	}
	fl.StringVar(&cfg.dir, "C", ".", "the workspace `DIR`ectory payload paths are relative to")
	fl.BoolVar(&cfg.allowOutside, "allow-outside", false, "allow paths outside the workspace")
	fl.BoolVar(&cfg.allowProtected, "allow-protected", false, "allow protected paths such as .git/")
	fl.BoolVar(&cfg.json, "json", false, "print the result as JSON")
	fl.BoolVar(&cfg.stream, "stream", false, "read the payload from standard input as it arrives, previewing it on standard error")
	fl.BoolVar(&cfg.undo, "undo", false, "review the undo of the newest change applied in the workspace that is not undone, from its history")
	fl.BoolVar(&cfg.redo, "redo", false, "review applying again the change the last --undo reverted")
	fl.BoolVar(&cfg.noHistory, "no-history", false, "keep no history of this run's change (it cannot be undone)")
	version := fl.Bool("version", false, "print the version and exit")
	if err := parseHelp(fl, args, stdout); err != nil {
		return nil, err
	}
	if *version {
		fmt.Fprintln(stdout, "tui", buildVersion())
		return nil, errVersion
	}
	cfg.args = fl.Args()
	if err := cfg.checkModes(); err != nil {
		fl.Usage()
		return nil, err
	}
	if cfg.stream && len(cfg.args) > 0 {
		fl.Usage()
		return nil, errors.New("--stream reads the payload from standard input; give no payload argument")
	}
	if len(cfg.args) > 1 {
		fl.Usage()
		return nil, errors.New("at most one payload argument")
	}
	return cfg, nil
}

// run is the whole command with its reviewer, so tests can give the review a fake
// terminal; it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, rv applypatch.Reviewer) int {
	cfg, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errVersion) {
		return exitApplied
	}
	if err != nil {
		fmt.Fprintln(stderr, "tui:", err)
		return exitUsage
	}
	var payload string
	if !cfg.stream && !cfg.reverting() {
		if payload, err = readPayload(cfg.args, stdin); err != nil {
			fmt.Fprintln(stderr, "tui:", err)
			return exitUsage
		}
	}
	root, err := filepath.Abs(cfg.dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(root); err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "tui: -C %s: %v\n", cfg.dir, err)
		return exitUsage
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		fmt.Fprintf(stderr, "tui: -C %s: %v\n", cfg.dir, errors.Unwrap(err))
		return exitUsage
	}
	defer confined.Close()
	opts := &applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: applypatch.ModeAsk, Authorizer: cfg.authorizer(),
		History: cfg.history(root, stderr)}
	if r, err := applypatch.Recover(ctx, afero.NewOsFs(), opts); err != nil {
		fmt.Fprintln(stderr, "tui:", err)
		return exitRejected
	} else if msg := r.String(); msg != "" {
		fmt.Fprintln(stderr, "tui:", msg)
	}
	if cfg.reverting() {
		return cfg.revert(ctx, opts, rv, stdout)
	}
	if cfg.stream {
		if payload, err = streamPayload(ctx, stdin, stderr, opts); err != nil {
			fmt.Fprintln(stderr, "tui:", err)
			return exitUsage
		}
	}
	res, err := review(ctx, payload, opts, rv)
	return report(res, err, cfg.json, stdout)
}

// review resolves the payload, its size checked first, then reviews it. Paths are
// resolved on the operating system's filesystem; reads and writes inside the workspace
// go through the confined filesystem in opts.
func review(ctx context.Context, payload string, opts *applypatch.Options, rv applypatch.Reviewer) (*applypatch.Result, error) {
	pr, err := applypatch.ResolvePayload(ctx, afero.NewOsFs(), payload, opts)
	if err != nil {
		return applypatch.ErrorResult(err), err
	}
	return applypatch.Review(ctx, pr, rv)
}

// readPayload takes the payload from the argument, a file, or standard input.
func readPayload(args []string, stdin io.Reader) (string, error) {
	if len(args) == 1 {
		if strings.HasPrefix(strings.TrimSpace(args[0]), "*** Begin Patch") {
			return args[0], nil
		}
		b, err := os.ReadFile(args[0])
		return string(b), err
	}
	if f, ok := stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return "", errors.New("no payload: give a payload file, the payload itself, or pipe it on standard input")
		}
	}
	b, err := io.ReadAll(stdin)
	if err == nil && len(b) == 0 {
		err = errNoPayload
	}
	return string(b), err
}

// errNoPayload says where a payload may come from.
var errNoPayload = errors.New("no payload: give a payload file, the payload itself, or pipe it on standard input")

// authorizer allows the classes the flags allow (F4); forbidden paths never reach it.
func (cfg *config) authorizer() applypatch.Authorizer {
	return classFlags{
		{applypatch.ClassOutside, cfg.allowOutside, "--allow-outside"},
		{applypatch.ClassProtected, cfg.allowProtected, "--allow-protected"},
	}
}

// classFlags allow a class of paths each when their flag is set.
type classFlags []struct {
	class   applypatch.Class
	allowed bool
	flag    string
}

// Authorize refuses the paths of a class whose flag is not set, naming the flag.
func (fl classFlags) Authorize(_ context.Context, _ applypatch.Mode, paths []applypatch.ClassifiedPath) error {
	var missing []string
	for _, f := range fl {
		if !f.allowed && slices.ContainsFunc(paths, func(p applypatch.ClassifiedPath) bool {
			return p.Class == f.class || (f.class == applypatch.ClassOutside && p.Outside)
		}) {
			missing = append(missing, fmt.Sprintf("%s paths need %s", f.class, f.flag))
		}
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, " and "))
	}
	return nil
}

// report prints the result and chooses the exit code.
func report(res *applypatch.Result, err error, asJSON bool, stdout io.Writer) int {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			*applypatch.Result
			Text    string `json:"text"`
			Summary string `json:"summary"`
		}{res, res.Text(), res.Summary()})
	} else {
		fmt.Fprintln(stdout, res.Text())
	}
	switch {
	case errors.As(err, new(*applypatch.IncompleteRollbackError)):
		return exitIncomplete
	case err != nil || res.Status == applypatch.StatusError:
		return exitRejected
	}
	return exitApplied
}
