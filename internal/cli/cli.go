// Package cli is the applypatch command, importable so tests can run it in-process.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/applypatch/applypatch/internal/crc32c"
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

// Run is the whole command: it parses args, reads the payload, applies it and returns the
// exit code. The process it runs in ends after one patch, so large buffers may ask for
// huge pages and the heap a large patch will take is made resident at once (see
// prefault.OneShot).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prefault.OneShot()
	return run(args, stdin, stdout, stderr, nil)
}

// Main is Run in the command's own process, which exits with the code it returns: the
// signals the run catches stay caught until then (see interruptible).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exiting.Store(true)
	return Run(args, stdin, stdout, stderr)
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
	if !cfg.check {
		// A command that writes sums what it writes, or reads back: the checksum's table
		// is made beside the recovery check and the parse, not in their way. Its goroutine
		// starts once the signals are caught: catching them is a round trip with a thread
		// of the runtime's own, which waited twice as long when that goroutine's new
		// thread was starting beside it.
		crc32c.Prepare()
	}
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
		r, err := recoverWorkspace(ctx, cfg.locking(root, confined), stderr)
		cfg.recovered = r.String()
		if err != nil {
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

// hostFs returns the operating system's filesystem, on which payload paths are resolved
// and classified and through which outside paths are written. A variable, so that tests
// can watch what reaches it.
var hostFs = afero.NewOsFs

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

// execute applies the payload, or with check only resolves it.
func execute(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options, check bool) (*applypatch.Result, error) {
	if !check {
		return applypatch.Apply(ctx, fsys, payload, opts)
	}
	return applypatch.Check(ctx, fsys, payload, opts)
}

// report prints the result and chooses the exit code.
func report(res *applypatch.Result, err error, cfg *config, stdout, stderr io.Writer) int {
	withRecovered(res, cfg.recovered)
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
