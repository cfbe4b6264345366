// Command applypatch-mcp is an MCP server that gives a client the apply_patch and
// undo_patch tools on one workspace, over standard input and output.
//
// Usage:
//
//	applypatch-mcp [-C DIR] [-mode ask|edits|full-auto] [-fallback refuse|edits|full-auto]
//	               [-allow-outside] [-allow-protected] [-no-history]
//
// -C is the workspace (default: the current directory); payload paths are relative to it
// and credential paths inside it are never written. -mode chooses the approval mode
// (default ask): in ask mode every patch is shown to the person through MCP elicitation,
// who applies it, rejects it, or sends feedback to the agent. -fallback is the mode for a
// client that cannot elicit (default refuse: such calls write nothing, and the refusal
// says which flag changes that). -allow-outside and -allow-protected let patches write
// outside the workspace and to protected paths such as .git/.
//
// The server keeps the workspace's history under $XDG_STATE_HOME/applypatch/history/
// (by default ~/.local/state/applypatch/history/), outside the workspace, and offers
// undo_patch, which reverts the newest change not undone (or, with redo, applies again the
// one undone last) in the same approval mode as apply_patch, never overwriting edits made
// since. -no-history keeps none and offers apply_patch alone.
//
// A line that is not a JSON-RPC message the server can take is answered with a JSON-RPC
// error, and the server goes on. On SIGINT or SIGTERM it accepts no new calls, answers the
// calls in flight and exits; calls still running after 10 seconds, or at a second signal,
// are cancelled (their commits roll back) and answered, and a third signal exits at once.
//
// Register it with a client by absolute paths, for example:
//
//	{"mcpServers": {"applypatch": {"command": "/home/me/go/bin/applypatch-mcp", "args": ["-C", "/home/me/project"]}}}
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// modes maps the flag values to approval modes.
var modes = map[string]applypatch.Mode{"edits": applypatch.ModeEdits, "full-auto": applypatch.ModeFullAuto, "ask": applypatch.ModeAsk}

// fallbacks maps the -fallback values; refuse is ask with no one to ask.
var fallbacks = map[string]applypatch.Mode{"refuse": applypatch.ModeAsk, "edits": applypatch.ModeEdits, "full-auto": applypatch.ModeFullAuto}

// main serves the workspace the flags name until the client leaves or a signal stops it.
func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errVersion) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	if err := confine(cfg); err != nil {
		log.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	if err := recoverWorkspace(cfg); err != nil {
		log.Fatal(err)
	}
	halt, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := serve(newServer(*cfg, halt), newGuard(os.Stdin, os.Stdout, maxFrame), sigs, cancel); err != nil {
		log.Fatal(err)
	}
}

// recoverWorkspace finishes or rolls back a commit an earlier run left unfinished. A
// signal cancels it, and stays queued for serve should recovery finish anyway, so that
// the server then exits without serving.
func recoverWorkspace(cfg *Config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := rootfs.Open(cfg.Workspace)
	if err != nil {
		return err
	}
	defer root.Close()
	r, err := applypatch.Recover(ctx, cfg.FS, &applypatch.Options{Workspace: cfg.Workspace, WorkspaceFs: root})
	if err != nil {
		return err
	}
	if msg := r.String(); msg != "" {
		log.Print(msg)
	}
	return nil
}

// payloadLimit is the largest payload the server resolves (the library's default).
const payloadLimit = 16 << 20

// maxFrame bounds one inbound JSON-RPC message: the largest payload the server accepts,
// with room for JSON escaping (which at most doubles ordinary text) and the call's
// envelope. The transport keeps only the start of a longer line, to answer it with an
// error, so a hostile client costs no more memory than the largest patch allowed.
var maxFrame = 2*payloadLimit + 128<<10

// errVersion is a request for the version, printed on standard output.
var errVersion = errors.New("version requested")

// parseFlags reads the command line into a configuration on the OS filesystem. -h and
// --help print the usage on stdout and return flag.ErrHelp; --version prints the version
// there and returns errVersion; a usage error is told on stderr.
func parseFlags(args []string, stdout, stderr io.Writer) (*Config, error) {
	fl := flag.NewFlagSet("applypatch-mcp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: applypatch-mcp [flags]\n\nServes the apply_patch and undo_patch tools over MCP on standard input and output.\n\nFlags:")
		fl.PrintDefaults()
	}
	version := fl.Bool("version", false, "print the version and exit")
	dir := fl.String("C", ".", "the workspace `DIR`ectory")
	mode := fl.String("mode", "ask", "approval mode: edits, full-auto or ask")
	fallback := fl.String("fallback", "refuse", "ask mode for a client that cannot elicit: refuse, edits or full-auto")
	allowOutside := fl.Bool("allow-outside", false, "allow paths outside the workspace")
	allowProtected := fl.Bool("allow-protected", false, "allow protected paths such as .git/")
	noHistory := fl.Bool("no-history", false, "keep no history of the changes applied: they cannot be undone, and undo_patch is not offered")
	if err := parseHelp(fl, args, stdout); err != nil {
		return nil, err
	}
	if *version {
		fmt.Fprintln(stdout, "applypatch-mcp", buildVersion())
		return nil, errVersion
	}
	cfg := &Config{FS: afero.NewOsFs(), AllowOutside: *allowOutside, AllowProtected: *allowProtected}
	var ok bool
	if cfg.Mode, ok = modes[*mode]; !ok {
		return nil, usageError(fl, "-mode must be edits, full-auto or ask, not %q", *mode)
	}
	if cfg.Fallback, ok = fallbacks[*fallback]; !ok {
		return nil, usageError(fl, "-fallback must be refuse, edits or full-auto, not %q", *fallback)
	}
	root, err := filepath.Abs(*dir)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(root); err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a directory", *dir)
		}
	}
	if err != nil {
		return nil, usageError(fl, "-C: %v", err)
	}
	cfg.Workspace = root
	if !*noHistory {
		cfg.History = userHistory(root, stderr)
	}
	return cfg, nil
}

// userHistory is the history of the workspace root under the user's state directory. One
// that cannot be opened is said on stderr, and the server runs without one.
func userHistory(root string, stderr io.Writer) *applypatch.History {
	h, err := applypatch.UserHistory(root)
	if err != nil {
		fmt.Fprintln(stderr, "applypatch-mcp: no history is kept, so undo_patch is not offered:", err)
		return nil
	}
	return h
}

// confine makes each call's reads and writes inside the workspace go through an os.Root
// opened for that call, while paths are resolved on the OS filesystem, so that no
// symbolic link swapped in at the last moment can lead a write out of the workspace, and
// no directory opened once outlives the workspace it was. It checks that the workspace
// opens now.
func confine(cfg *Config) error {
	root, err := rootfs.Open(cfg.Workspace)
	if err != nil {
		return err
	}
	cfg.Confine = true
	return root.Close()
}

// usageError tells a usage error on the flag set's output, with the usage, and returns it.
func usageError(fl *flag.FlagSet, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	fmt.Fprintln(fl.Output(), "applypatch-mcp:", err)
	fl.Usage()
	return err
}
