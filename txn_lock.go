package applypatch

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/applypatch/applypatch/internal/wslock"
)

// workspaceLocker is a filesystem that supplies the workspace lock itself (see the
// Options doc: fs/rootfs does, and so may a host's own filesystem).
type workspaceLocker interface {
	LockWorkspace(ctx context.Context, dir string) (unlock func(), err error)
}

// lockWorkspace takes the lock of the fence's workspace for one commit or recovery,
// waiting no longer than Options.LockTimeout and telling Options.LockWait when the wait
// lasts.
func lockWorkspace(ctx context.Context, fsys afero.Fs, f *fence.Fence, opts *Options) (func(), error) {
	ctx, cancel := lockContext(ctx, opts.LockTimeout)
	defer cancel()
	ctx, stop := wslock.Watch(ctx, f.Real(), opts.LockWait)
	defer stop()
	return takeLock(ctx, fsys, f, opts)
}

// takeLock takes the workspace's lock from whichever supplies it (see the Options doc).
func takeLock(ctx context.Context, fsys afero.Fs, f *fence.Fence, opts *Options) (func(), error) {
	if l, ok := opts.WorkspaceFs.(workspaceLocker); ok {
		return l.LockWorkspace(ctx, "/")
	}
	if l, ok := fsys.(workspaceLocker); ok {
		return l.LockWorkspace(ctx, f.Real())
	}
	if _, ok := fsys.(*afero.OsFs); ok {
		return lockOsDir(ctx, f.Real())
	}
	return wslock.Acquire(ctx, lockKey(fsys), f.Real())
}

// lockContext bounds a wait for the lock by timeout, when it is positive.
func lockContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, timeout, lockTimeoutError(timeout))
}

// lockTimeoutError is the cause of a wait for the lock that Options.LockTimeout ended: a
// deadline exceeded.
type lockTimeoutError time.Duration

func (e lockTimeoutError) Error() string {
	return fmt.Sprintf("waited %v, the lock timeout", time.Duration(e))
}

func (lockTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// lockOsDir locks a directory of the operating system's filesystem.
func lockOsDir(ctx context.Context, dir string) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fserr.Sanitize(err, dir, "workspace")
	}
	return wslock.Dir(ctx, d)
}

// lockFor takes the workspace lock before a payload is resolved, for a caller that
// reviews nothing ([Apply]): it then reads the baselines a concurrent commit left, rather
// than conflicting with it. When the workspace cannot be resolved no lock is taken, and
// Resolve reports why. While the lock is held the workspace's directories are kept open
// (a batch, see fs/rootfs), so resolving and committing read and write each file
// relative to its kept directory, which no other commit renames meanwhile.
func lockFor(ctx context.Context, fsys afero.Fs, opts *Options) (func(), error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return func() {}, nil
	}
	unlock, err := lockWorkspace(ctx, fsys, f, opts)
	if err != nil {
		return unlock, err
	}
	end := splitfs.Batch(f.Files())
	return func() {
		end()
		unlock()
	}, nil
}
