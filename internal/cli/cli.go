// Package cli is the applypatch command, importable so tests can run it in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/applypatch/applypatch/internal/prefault"
	"github.com/applypatch/applypatch/internal/reviewscript"
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
"*** Begin Patch", or from standard input (no argument, or "-").

With --review-script FILE the patch is reviewed first by the script's actions, one a line
(PATH as authored, HUNK the changing-hunk number as the review rows count it):

    deselect PATH [HUNK]
    select PATH [HUNK]
    feedback PATH|* [HUNK] TEXT     (* is the whole patch; \n in TEXT is a newline)
    revise PATH FILE                (FILE, relative to the script, holds the edited result)
    submit | reject                 (the last line)

Streams: the result the model would see, success or failure, is printed on standard
output (with --json, as JSON); standard error carries only diagnostics, such as usage
errors and hints. --check --diff also prints the unified diff the patch would apply.

While another applypatch commit holds the workspace, or a directory above it or below
it, this one waits: it says so on standard error within a second, and gives up after
--lock-timeout with nothing written. SIGINT or SIGTERM ends the run with nothing of the
patch written: a wait for the lock at once, a recovery once the workspace is repaired,
a commit under way once it is rolled back.

Exit status: 0 applied (or a revision requested), 1 rejected with nothing written,
2 usage error, 3 a failed commit whose rollback was incomplete.

Flags:
`

// config is the parsed command line.
type config struct {
	dir            string
	check          bool
	diff           bool
	json           bool
	version        bool
	allowOutside   bool
	allowProtected bool
	reviewScript   string
	recover        bool
	undo, redo     bool
	listHistory    bool
	noHistory      bool
	lockTimeout    time.Duration
	expect         expectations
	encodings      encodingFlags
	args           []string
	// unified is the diff --check --diff prints.
	unified string
	// stderr is where diagnostics go, such as the wait for the workspace lock.
	stderr io.Writer
}

// expectations are --expect PATH=SHA256 flags: expected-before snapshots (X2).
type expectations map[string]string

func (e *expectations) String() string { return "" }

func (e *expectations) Set(v string) error {
	p, hash, ok := strings.Cut(v, "=")
	if !ok || p == "" || len(hash) != 64 {
		return errors.New("want PATH=SHA256, the hex SHA-256 of the content PATH must still have")
	}
	if *e == nil {
		*e = expectations{}
	}
	(*e)[p] = strings.ToLower(hash)
	return nil
}

// parseFlags reads the command line; --help prints the usage on stdout.
func parseFlags(args []string, stdout io.Writer) (*config, error) {
	cfg := &config{}
	fl := flag.NewFlagSet("applypatch", flag.ContinueOnError)
	fl.SetOutput(io.Discard) // errors are reported in one line by run, usage on request
	fl.Usage = func() {}
	fl.StringVar(&cfg.dir, "C", ".", "the workspace `DIR`ectory payload paths are relative to")
	fl.BoolVar(&cfg.check, "check", false, "resolve the payload and report, writing nothing")
	fl.BoolVar(&cfg.diff, "diff", false, "with --check, also print the unified diff the patch would apply")
	fl.BoolVar(&cfg.recover, "recover", false, "only undo a commit that was interrupted in the workspace, and say what was done")
	fl.BoolVar(&cfg.undo, "undo", false, "undo the newest change applied in the workspace that is not undone, from its history")
	fl.BoolVar(&cfg.redo, "redo", false, "apply again the change the last --undo reverted")
	fl.BoolVar(&cfg.listHistory, "history", false, "list the changes the workspace's history holds, newest first")
	fl.BoolVar(&cfg.noHistory, "no-history", false, "keep no history of this run's change (it cannot be undone)")
	fl.DurationVar(&cfg.lockTimeout, "lock-timeout", defaultLockTimeout, "give up after waiting this `DURATION` (e.g. 30s) for another commit's lock on the\n"+
		"workspace, with nothing written; 0 waits as long as it takes")
	fl.BoolVar(&cfg.json, "json", false, "print the result as JSON")
	fl.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fl.BoolVar(&cfg.allowOutside, "allow-outside", false, "allow paths outside the workspace")
	fl.BoolVar(&cfg.allowProtected, "allow-protected", false, "allow protected paths such as .git/")
	fl.StringVar(&cfg.reviewScript, "review-script", "", "review the patch with the actions of review script `FILE` before applying it")
	fl.Var(&cfg.expect, "expect", "refuse to write unless workspace file `PATH=SHA256` still has that content (repeatable)")
	fl.Var(&cfg.encodings, "encoding", "declare the encoding of files matching `GLOB=NAME` (repeatable; the last match wins;\n"+
		"a GLOB without a slash matches file names), e.g. '*.txt=latin-1' or 'legacy/*.c=windows-1252'")
	if err := fl.Parse(args); errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, fl)
		return nil, errHelp
	} else if err != nil {
		return nil, flagError(fl, err, args)
	}
	if cfg.version {
		return nil, errVersion
	}
	if cfg.check && cfg.reviewScript != "" {
		return nil, errors.New("--check and --review-script do not go together: a check writes nothing to review")
	}
	if cfg.lockTimeout < 0 {
		return nil, errors.New("--lock-timeout must not be negative (0 waits as long as it takes)")
	}
	if cfg.diff && !cfg.check {
		return nil, errors.New("--diff shows what a check would apply; use it with --check")
	}
	cfg.args = fl.Args()
	if err := cfg.checkModes(); err != nil {
		return nil, err
	}
	if len(cfg.args) > 1 {
		return nil, errors.New("at most one payload argument, a file or the patch itself (applypatch --help)")
	}
	return cfg, nil
}

// Run is the whole command: it parses args, reads the payload, applies it and returns the
// exit code. The process it runs in ends after one patch, so large buffers may ask for
// huge pages and the heap a large patch will take is made resident at once (see
// prefault.OneShot).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prefault.OneShot()
	return run(args, stdin, stdout, stderr, nil)
}

// run is Run with a hook that wraps the workspace filesystem, so tests can inject faults
// into the writes inside the workspace.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, wrap func(afero.Fs) afero.Fs) int {
	cfg, err := parseFlags(args, stdout)
	if errors.Is(err, errHelp) {
		return exitApplied
	}
	if errors.Is(err, errVersion) {
		fmt.Fprintln(stdout, "applypatch", version())
		return exitApplied
	}
	if err != nil {
		fmt.Fprintln(stderr, "applypatch:", err)
		return exitUsage
	}
	cfg.stderr = stderr
	var payload string
	if !cfg.recover && !cfg.reverting() && !cfg.listHistory {
		if (len(cfg.args) == 0 || cfg.args[0] == "-") && isTerminal(stdin) {
			fmt.Fprintln(stderr, "applypatch:", errNoPayload)
			return exitUsage
		}
		payload, err = readPayload(cfg.args, stdin, payloadLimit)
		if errors.As(err, new(*applypatch.ParseError)) {
			return report(applypatch.ErrorResult(err), err, cfg, stdout, stderr)
		}
		if err != nil {
			fmt.Fprintln(stderr, "applypatch:", err)
			return exitUsage
		}
		prefault.Heap(heapFor(payload))
	}
	// Signals are caught from here on: until now one ends the run at once, with nothing
	// written; from here it ends the wait for the lock, the recovery or the commit.
	ctx, stop := interruptible()
	defer stop()
	root, err := workspaceRoot(cfg.dir)
	if err != nil {
		fmt.Fprintf(stderr, "applypatch: -C %s: %v\n", cfg.dir, err)
		return exitUsage
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		fmt.Fprintf(stderr, "applypatch: -C %s: %v\n", cfg.dir, errors.Unwrap(err))
		return exitUsage
	}
	defer confined.Close()
	if cfg.recover {
		return recoverOnly(ctx, cfg.locking(root, confined), stdout)
	}
	if cfg.listHistory {
		return cfg.historyOnly(root, stdout)
	}
	if !cfg.check { // a dry run writes nothing: Check reports a pending commit instead
		if _, err := recoverWorkspace(ctx, cfg.locking(root, confined), stderr); err != nil {
			res, err := cfg.explain(applypatch.ErrorResult(err), err)
			return report(res, err, cfg, stdout, stderr)
		}
	}
	ws := slowed(confined)
	if wrap != nil {
		ws = wrap(ws)
	}
	var script *reviewscript.Script
	if cfg.reviewScript != "" {
		if script, err = loadScript(cfg.reviewScript, stderr); err != nil {
			fmt.Fprintln(stderr, "applypatch:", err)
			return exitUsage
		}
	}
	if cfg.reverting() {
		return cfg.revertOnly(ctx, root, ws, script, stdout, stderr)
	}
	res, err := cfg.explain(cfg.apply(ctx, root, ws, payload, script))
	return report(res, err, cfg, stdout, stderr)
}

// workspaceRoot is the -C directory as an absolute name with every symbolic link on
// the way followed: the name the library resolves payload paths under, so that
// --encoding globs are matched against the names it asks about.
func workspaceRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errors.New("no such directory")
	}
	if err != nil {
		return "", errors.New("not a directory")
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", errors.New("not a directory")
	}
	return root, nil
}

// apply runs the payload on the workspace root, confined being an os.Root over it, after
// a review by script when one is given. Paths are resolved and classified on the
// operating system's filesystem, but every read and write inside the workspace goes
// through an os.Root over it (fs/rootfs), so a symbolic link swapped in between the last
// check and a write cannot lead the write out of the workspace. Only outside paths, which
// need --allow-outside, are written through the plain filesystem.
func (cfg *config) apply(ctx context.Context, root string, confined afero.Fs, payload string, script *reviewscript.Script) (*applypatch.Result, error) {
	opts := cfg.options(root, confined)
	if cfg.check {
		opts.History = nil // a dry run records nothing
	}
	if script == nil {
		res, err := execute(ctx, hostFs(), payload, opts, cfg.check)
		if err == nil && cfg.diff {
			cfg.unified, err = unifiedDiff(ctx, hostFs(), payload, opts)
			if err != nil {
				res = applypatch.ErrorResult(err)
			}
		}
		return res, err
	}
	opts.Mode = applypatch.ModeAsk
	return review(ctx, hostFs(), payload, opts, script)
}

// options are the library's options for this run: the workspace, its lock, the
// authority the flags give, the encodings, the snapshots and the history.
func (cfg *config) options(root string, confined afero.Fs) *applypatch.Options {
	opts := cfg.locking(root, confined)
	opts.Authorizer, opts.Limits = cfg.authorizer(), applypatch.Limits{Payload: payloadLimit}
	opts.Encoding, opts.Expected = cfg.encodings.declared(root), cfg.expected()
	opts.History = cfg.history(root)
	return opts
}

// reverting reports whether the run is --undo or --redo.
func (cfg *config) reverting() bool { return cfg.undo || cfg.redo }

// checkModes refuses flags that do not go together: one of a payload, --recover,
// --undo, --redo and --history at a time.
func (cfg *config) checkModes() error {
	modes := []struct {
		on   bool
		name string
	}{{cfg.recover, "--recover"}, {cfg.undo, "--undo"}, {cfg.redo, "--redo"}, {cfg.listHistory, "--history"}}
	var on []string
	for _, m := range modes {
		if m.on {
			on = append(on, m.name)
		}
	}
	switch {
	case len(on) > 1:
		return fmt.Errorf("%s and %s do not go together: run one at a time", on[0], on[1])
	case len(on) == 1 && len(cfg.args) > 0:
		return fmt.Errorf("%s takes no payload", on[0])
	case cfg.listHistory && (cfg.check || cfg.reviewScript != ""):
		return errors.New("--history lists the history; --check and --review-script are for a patch, --undo or --redo")
	case cfg.noHistory && (cfg.reverting() || cfg.listHistory):
		return fmt.Errorf("--no-history and %s do not go together: %s reads the history", on[0], on[0])
	}
	return nil
}

// hostFs returns the operating system's filesystem, on which payload paths are resolved
// and classified and through which outside paths are written. A variable, so that tests
// can watch what reaches it.
var hostFs = afero.NewOsFs

// expected turns --expect flags into snapshots. They check content only; the library
// matches each path, as typed, to the path of the payload it names.
func (cfg *config) expected() map[string]applypatch.Snapshot {
	if len(cfg.expect) == 0 {
		return nil
	}
	out := map[string]applypatch.Snapshot{}
	for p, hash := range cfg.expect {
		out[p] = applypatch.Snapshot{Exists: true, Hash: hash}
	}
	return out
}

// loadScript reads a review script; its revise files are read relative to it.
func loadScript(name string, log io.Writer) (*reviewscript.Script, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	sr, err := reviewscript.Load(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
	if err != nil {
		return nil, err
	}
	sr.Name, sr.Log = name, log
	return sr, nil
}

// review resolves the payload, its size checked first, then reviews it with the script.
func review(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options, rv applypatch.Reviewer) (*applypatch.Result, error) {
	pr, err := applypatch.ResolvePayload(ctx, fsys, payload, opts)
	if err != nil {
		return applypatch.ErrorResult(err), err
	}
	return applypatch.Review(ctx, pr, rv)
}

// authorizer allows the classes the flags allow (F4). Forbidden paths never reach it:
// the library refuses them in every mode.
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

// Authorize refuses the paths of a class whose flag is not set, naming the flag. A
// protected path outside the workspace, such as ../.git/hooks/x, needs both flags.
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
			Unified string `json:"unified,omitempty"`
		}{res, res.Text(), res.Summary(), cfg.unified}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // "f -> g" reads as written
		enc.Encode(out)
	} else {
		// Two writes, not Fprintln: its buffer would copy a large result's text once more.
		io.WriteString(stdout, res.Text())
		io.WriteString(stdout, "\n")
		if cfg.unified != "" {
			fmt.Fprint(stdout, "\n", cfg.unified)
		}
	}
	// A file that is not valid UTF-8, with no encoding declared: the library asks the host
	// to declare one, which here is the user, with a flag.
	if len(cfg.encodings) == 0 && errors.Is(err, &applypatch.FileError{Reason: applypatch.FileUndecodable}) {
		fmt.Fprintln(stderr, "applypatch: declare the file's encoding with --encoding GLOB=NAME, e.g. --encoding '*.txt=latin-1'")
	}
	switch {
	case errors.As(err, new(*applypatch.IncompleteRollbackError)):
		return exitIncomplete
	case err != nil || res.Status == applypatch.StatusError:
		return exitRejected
	}
	return exitApplied
}
