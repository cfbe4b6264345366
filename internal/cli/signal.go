package cli

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// interruptible is the context of one run: SIGINT, SIGTERM and SIGHUP (the terminal
// the run was started from closed) cancel it, so that a commit in flight rolls back and
// the run ends with the usual result. The signals stay caught until stop is called, so a
// second one does not cut the rollback short. In the command's own process (see Main)
// stop leaves them caught until the process exits: giving each signal its default back
// is a round trip with the runtime's signal thread, 0.06 to 0.2 ms for the three, for a
// process about to end, which a late signal then does not cut short either.
func interruptible() (ctx context.Context, stop func()) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if exiting.Load() {
		return ctx, func() {}
	}
	return ctx, stop
}

// exiting is set in the command's own process, which exits once its run returns.
var exiting atomic.Bool
