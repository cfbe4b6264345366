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
// they are cancelled, and haltTimeout how long the cancelled calls then have to answer.
var drainTimeout, haltTimeout = 10 * time.Second, 5 * time.Second

// Errors of a shutdown that did not answer every call.
var (
	errSecondSignal = errors.New("a second signal: exiting with calls in flight")
	errHaltTimeout  = errors.New("the calls in flight did not answer in time")
)

// serve runs srv through g until the client leaves (X17). The first signal on sigs stops
// the server accepting calls, while the calls in flight finish, the library's commit
// completing or rolling back under its own context, and are answered; then serve returns.
// Calls still running after drainTimeout are cancelled by halt (see newServer), and a
// second signal makes serve return at once.
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
	if o == timedOut {
		log.Printf("calls still in flight after %v (%d): cancelling them", drainTimeout, g.inFlight())
		halt()
		o, err = await(done, sigs, haltTimeout)
	}
	switch o {
	case signalled:
		return errSecondSignal
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
