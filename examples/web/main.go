// Command web reviews a patch in the browser, then applies what the review kept:
//
//	go run . -C DIR PAYLOAD_FILE
//
// It resolves the payload against DIR, prints the address of a local review page (with
// its token) on standard error, serves the review until a person applies, rejects or
// sends feedback, and prints the model-visible result on standard output. Exit status: 0
// applied or revision requested, 1 rejected or refused (nothing written), 2 usage, 3 a
// failed commit whose rollback was incomplete.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/examples/web/webreview"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil))
}

// Exit codes, as the applypatch command has them.
const (
	exitApplied    = 0
	exitRejected   = 1
	exitUsage      = 2
	exitIncomplete = 3
)

// run is the command. ready, when set, is also given the page's URL (tests drive the page
// with it).
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) int {
	fl := flag.NewFlagSet("web", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("C", ".", "the workspace `DIR`ectory payload paths are relative to")
	addr := fl.String("addr", "", "the loopback `ADDRESS` to serve the page on (default 127.0.0.1 on a random port)")
	version := fl.Bool("version", false, "print the version and exit")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: web [-C DIR] [-addr ADDRESS] PAYLOAD_FILE\n\nReviews the patch on a local web page, then applies what the review kept.")
		fl.PrintDefaults()
	}
	if err := parseHelp(fl, args, stdout); errors.Is(err, flag.ErrHelp) {
		return exitApplied
	} else if err != nil {
		return exitUsage
	}
	if *version {
		fmt.Fprintln(stdout, "web", buildVersion())
		return exitApplied
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return exitUsage
	}
	payload, err := os.ReadFile(fl.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return exitUsage
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return exitUsage
	}
	confined, err := rootfs.Open(root)
	if err != nil {
		fmt.Fprintf(stderr, "web: -C %s: not a directory we can open\n", *dir)
		return exitUsage
	}
	defer confined.Close()

	rv := &webreview.Reviewer{Addr: *addr, Ready: func(url string) {
		fmt.Fprintf(stderr, "Review the patch at %s\n", url)
		if ready != nil {
			ready(url)
		}
	}}
	opts := &applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: applypatch.ModeAsk}
	if r, err := applypatch.Recover(ctx, afero.NewOsFs(), opts); err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return exitRejected
	} else if msg := r.String(); msg != "" {
		fmt.Fprintln(stderr, "web:", msg)
	}
	res, err := review(ctx, afero.NewOsFs(), string(payload), opts, rv)
	fmt.Fprintln(stdout, res.Text())
	switch {
	case errors.As(err, new(*applypatch.IncompleteRollbackError)):
		return exitIncomplete
	case err != nil || res.Status == applypatch.StatusError:
		return exitRejected
	}
	return exitApplied
}

// review resolves the payload, its size checked first, then reviews it on the page. It
// returns once the page has answered the request that settled the review.
func review(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options, rv *webreview.Reviewer) (*applypatch.Result, error) {
	pr, err := applypatch.ResolvePayload(ctx, fsys, payload, opts)
	if err != nil {
		return applypatch.ErrorResult(err), err
	}
	served := make(chan struct{})
	res, err := applypatch.Review(ctx, pr, applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		defer close(served)
		return rv.Review(ctx, s)
	}))
	<-served
	return res, err
}
