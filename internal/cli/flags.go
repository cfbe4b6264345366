package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/applypatch/applypatch"
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
--lock-timeout with nothing written. SIGINT, SIGTERM or SIGHUP ends the run with nothing
of the patch written: a wait for the lock at once, a recovery once the workspace is
repaired, a commit under way once it is rolled back.

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
	// recovered is what the run's recovery of an interrupted commit did, for the result.
	recovered string
	// hist is the workspace's history once opened (nil when it is off or cannot be), and
	// histOpened whether it was.
	hist       *applypatch.History
	histOpened bool
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
