package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is the context of one run: SIGINT, SIGTERM and SIGHUP (the terminal
// the run was started from closed) cancel it, so that a commit in flight rolls back and
// the run ends with the usual result. The signals stay caught until stop is called, so a
// second one does not cut the rollback short.
func interruptible() (ctx context.Context, stop func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
