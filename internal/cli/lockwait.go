package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/internal/wslock"
	"github.com/spf13/afero"
)

// defaultLockTimeout is how long a run waits for another commit's lock on the workspace
// unless --lock-timeout says otherwise: long enough for any commit of a sane patch.
const defaultLockTimeout = 2 * time.Minute

// locking returns the options of a run on the workspace root, confined being an os.Root
// over it: the workspace, its history (whose notes recovery settles), and the wait for
// its lock, bounded by --lock-timeout and told on stderr.
func (cfg *config) locking(root string, confined afero.Fs) *applypatch.Options {
	return &applypatch.Options{Workspace: root, WorkspaceFs: confined, History: cfg.history(root),
		LockTimeout: cfg.lockTimeout, LockWait: cfg.lockWait}
}

// lockWait says, in one line, that the run waits for another commit's lock.
func (cfg *config) lockWait(dir string, holder int) {
	until := "waits as long as it takes (--lock-timeout 0); Ctrl-C stops it"
	if cfg.lockTimeout > 0 {
		until = fmt.Sprintf("gives up after %v (--lock-timeout)", cfg.lockTimeout)
	}
	fmt.Fprintf(cfg.stderr, "applypatch: waiting for another commit to finish: the lock of %s is held%s; "+
		"this run %s\n", dir, byProcess(holder), until)
}

// byProcess names the holder of a lock, when it is known.
func byProcess(holder int) string {
	if holder <= 0 {
		return ""
	}
	return fmt.Sprintf(" by process %d", holder)
}

// explain tells a library error in the command's terms, when it has its own: a conflict
// that came from --expect, or a wait for the lock that ended. It takes apply's results.
func (cfg *config) explain(res *applypatch.Result, err error) (*applypatch.Result, error) {
	msg := cfg.reword(err)
	if msg == "" {
		msg = cfg.lockFailure(err)
	}
	if msg == "" {
		return res, err
	}
	err = &reworded{msg: msg, err: err}
	return applypatch.ErrorResult(err), err
}

// lockFailure is what to say of a wait for the workspace lock that ended before the lock
// was had, or "": on stdout without the directory, like every result, and on stderr
// with it.
func (cfg *config) lockFailure(err error) string {
	if !errors.Is(err, &applypatch.ConflictError{Reason: applypatch.ConflictLocked}) {
		return ""
	}
	var we *wslock.WaitError
	waited := errors.As(err, &we)
	switch {
	case waited && errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintf(cfg.stderr, "applypatch: gave up waiting for the lock of %s, held%s, after --lock-timeout %v; nothing was written\n",
			we.Dir, byProcess(we.Holder), cfg.lockTimeout)
		return fmt.Sprintf("another commit holds the workspace%s: gave up waiting for it after %v (--lock-timeout), "+
			"and nothing was written. Run again once it has finished, or give a longer --lock-timeout (0 waits as long as it takes)",
			holderNote(we.Holder), cfg.lockTimeout)
	case waited && errors.Is(err, context.Canceled):
		fmt.Fprintf(cfg.stderr, "applypatch: interrupted while waiting for the lock of %s, held%s; nothing was written\n",
			we.Dir, byProcess(we.Holder))
		return fmt.Sprintf("interrupted while waiting for another commit%s to release the workspace; nothing was written",
			holderNote(we.Holder))
	case errors.Is(err, context.Canceled):
		return "interrupted before the patch was applied; nothing of it was written"
	}
	return ""
}

// holderNote names the holder of a lock in parentheses, when it is known.
func holderNote(holder int) string {
	if holder <= 0 {
		return ""
	}
	return fmt.Sprintf(" (process %d)", holder)
}
