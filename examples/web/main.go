// Command web reviews a patch in the browser, then applies what the review kept:
//
//	go run . [-C DIR] [-addr ADDRESS] [--no-history] PAYLOAD_FILE
//	go run . [-C DIR] [-addr ADDRESS] --undo | --redo
//
// It resolves the payload against DIR, prints the address of a local review page (with
// its token) on standard error, serves the review until a person applies, rejects or
// sends feedback, and prints the model-visible result on standard output. What is applied
// is recorded in the workspace's history, which the applypatch command shares; --undo and
// --redo review on the same page the undo of the newest change, or applying again the one
// undone last. Exit status: 0 applied or revision requested, 1 rejected or refused
// (nothing written), 2 usage, 3 a failed commit whose rollback was incomplete.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
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
	var hist historyFlags
	fl.BoolVar(&hist.undo, "undo", false, "review the undo of the newest change applied in the workspace that is not undone, from its history")
	fl.BoolVar(&hist.redo, "redo", false, "review applying again the change the last --undo reverted")
	fl.BoolVar(&hist.off, "no-history", false, "keep no history of this run's change (it cannot be undone)")
	version := fl.Bool("version", false, "print the version and exit")
	fl.Usage = func() {
		fmt.Fprintln(fl.Output(), "usage: web [-C DIR] [-addr ADDRESS] [--no-history] PAYLOAD_FILE\n"+
			"       web [-C DIR] [-addr ADDRESS] --undo | --redo\n\n"+
			"Reviews the patch on a local web page, then applies what the review kept. With --undo or\n"+
			"--redo it reviews the same way the undo of the newest change applied in the workspace, or\n"+
			"applying again the one undone last.")
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
	if err := hist.check(fl.NArg()); err != nil {
		fl.Usage()
		fmt.Fprintln(stderr, "web:", err)
		return exitUsage
	}
	if !hist.reverting() && fl.NArg() != 1 {
		fl.Usage()
		return exitUsage
	}
	var payload []byte
	if !hist.reverting() {
		var err error
		if payload, err = os.ReadFile(fl.Arg(0)); err != nil {
			fmt.Fprintln(stderr, "web:", err)
			return exitUsage
		}
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
		fmt.Fprintf(stderr, "Review the %s at %s\n", hist.what(), url)
		if ready != nil {
			ready(url)
		}
	}}
	opts := &applypatch.Options{Workspace: root, WorkspaceFs: confined, Mode: applypatch.ModeAsk, History: hist.open(root, stderr)}
	if r, err := applypatch.Recover(ctx, afero.NewOsFs(), opts); err != nil {
		fmt.Fprintln(stderr, "web:", err)
		return exitRejected
	} else if msg := r.String(); msg != "" {
		fmt.Fprintln(stderr, "web:", msg)
	}
	var pr *applypatch.Proposal
	if hist.reverting() {
		var nothing string
		if pr, nothing, err = hist.proposal(ctx, opts); nothing != "" {
			fmt.Fprintln(stdout, nothing)
			return exitRejected
		}
	} else {
		pr, err = applypatch.ResolvePayload(ctx, afero.NewOsFs(), string(payload), opts)
	}
	var res *applypatch.Result
	if err != nil {
		res = applypatch.ErrorResult(err)
	} else {
		res, err = review(ctx, pr, rv)
	}
	fmt.Fprintln(stdout, res.Text())
	switch {
	case errors.As(err, new(*applypatch.IncompleteRollbackError)):
		return exitIncomplete
	case err != nil || res.Status == applypatch.StatusError:
		return exitRejected
	}
	return exitApplied
}

// review reviews the proposal on the page: a patch's, an undo's or a redo's alike. It
// returns once the page has answered the request that settled the review.
func review(ctx context.Context, pr *applypatch.Proposal, rv *webreview.Reviewer) (*applypatch.Result, error) {
	served := make(chan struct{})
	res, err := applypatch.Review(ctx, pr, applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
		defer close(served)
		return rv.Review(ctx, s)
	}))
	<-served
	return res, err
}
