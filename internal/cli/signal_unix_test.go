//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// H5, PERF5: in the command's own process a run's stop leaves its signals caught until
// the process exits: a SIGHUP after the run ends its context instead of the process.
// (A run in any other process gives them back; the forked runs of process_test.go
// show a signal ending a run midway.)
func TestExitingRunKeepsSignalsCaught(t *testing.T) {
	exiting.Store(true)
	defer exiting.Store(false)
	ctx, stop := interruptible()
	stop()
	defer signal.Reset(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if ctx.Err() != nil {
		t.Fatal("stop ended the context before any signal")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a SIGHUP after stop did not reach the run's context")
	}
}
