package main

import (
	"context"
	"errors"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the calls in flight may run after the first signal before
// they are cancelled, and haltTimeout how long the cancelled calls then have to answer:
// long enough for a commit of thousands of files to roll back.
var drainTimeout, haltTimeout = 10 * time.Second, 60 * time.Second

// Errors of a shutdown that did not answer every call.
var (
	errThirdSignal = errors.New("a third signal: exiting with calls in flight")
	errHaltTimeout = errors.New("the calls in flight did not answer in time")
)

// serve runs srv through g until the client leaves (X17). The first signal on sigs stops
// the server accepting calls, while the calls in flight finish, the library's commit
// completing or rolling back under its own context, and are answered; then serve returns.
// Calls still running after drainTimeout, or at a second signal, are cancelled by halt (see
// newServer): their commits roll back, and they are answered. Only a third signal makes
// serve return at once, with whatever is still running left to the next start's
// recovery.
func serve(srv *mcp.Server, g *guard, sigs <-chan os.Signal, halt func()) error {
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), g) }()
	select {
	case err := <-done:
		return err
	case sig := <-sigs:
		log.Printf("%v: finishing the calls in flight (%d), then exiting", sig, g.inFlight())
	}
	g.drain()
	o, err := await(done, sigs, drainTimeout)
	switch o {
	case timedOut:
		log.Printf("calls still in flight after %v (%d): cancelling them", drainTimeout, g.inFlight())
	case signalled:
		log.Printf("a second signal: cancelling the calls in flight (%d), whose commits roll back; a third exits at once", g.inFlight())
	}
	if o != finished {
		halt()
		o, err = await(done, sigs, haltTimeout)
	}
	switch o {
	case signalled:
		return errThirdSignal
	case timedOut:
		return errHaltTimeout
	}
	return err
}

// outcome is how a wait of await ended.
type outcome int

// The outcomes of await.
const (
	finished outcome = iota
	signalled
	timedOut
)

// await waits for the server to finish, a signal, or d to pass.
func await(done <-chan error, sigs <-chan os.Signal, d time.Duration) (outcome, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return finished, err
	case <-sigs:
		return signalled, nil
	case <-t.C:
		return timedOut, nil
	}
}
