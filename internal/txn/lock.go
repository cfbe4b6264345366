package txn

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/wslock"
	"github.com/spf13/afero"
)

// lockKey is the map key of a filesystem: the value itself when it can be one, else
// its type.
func lockKey(fsys afero.Fs) any {
	if _, ok := fsys.(*afero.OsFs); ok {
		return reflect.TypeFor[*afero.OsFs]()
	}
	if v := reflect.ValueOf(fsys); !v.Comparable() {
		return v.Type()
	}
	return fsys
}

// workspaceLocker is a filesystem that supplies the workspace lock itself (see the
// Options doc: fs/rootfs does, and so may a host's own filesystem).
type workspaceLocker interface {
	LockWorkspace(ctx context.Context, dir string) (unlock func(), err error)
}

// Lock takes the lock of the resolved workspace dir for one commit or recovery,
// waiting no longer than the configured LockTimeout and telling LockWait when the wait
// lasts.
func Lock(ctx context.Context, fsys afero.Fs, dir string, c Config) (func(), error) {
	ctx, cancel := lockContext(ctx, c.LockTimeout)
	defer cancel()
	ctx, stop := wslock.Watch(ctx, dir, c.LockWait)
	defer stop()
	return takeLock(ctx, fsys, dir, c)
}

// takeLock takes the workspace's lock from whichever supplies it (see the Options doc).
func takeLock(ctx context.Context, fsys afero.Fs, dir string, c Config) (func(), error) {
	if len(c.Outside) > 0 {
		if ds, ok := openDirs(dir, c.Outside); ok {
			return wslock.Dirs(ctx, ds)
		}
	}
	if l, ok := c.WorkspaceFs.(workspaceLocker); ok {
		return l.LockWorkspace(ctx, "/")
	}
	if l, ok := fsys.(workspaceLocker); ok {
		return l.LockWorkspace(ctx, dir)
	}
	if _, ok := fsys.(*afero.OsFs); ok {
		return lockOsDir(ctx, dir)
	}
	return wslock.Acquire(ctx, lockKey(fsys), dir)
}

// openDirs opens the workspace directory and the directories outside it a commit writes
// in, on the operating system, to lock them together; ok is false when the workspace is
// not a directory of the operating system (its filesystem's own lock covers it all). An
// outside directory that cannot be opened is left out: the fence refuses its writes.
func openDirs(dir string, outside []string) (ds []*os.File, ok bool) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	ds = append(ds, d)
	for _, o := range outside {
		if f, err := os.Open(o); err == nil {
			ds = append(ds, f)
		}
	}
	return ds, true
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

// Error says how long the wait lasted.
func (e lockTimeoutError) Error() string {
	return fmt.Sprintf("waited %v, the lock timeout", time.Duration(e))
}

// Unwrap is context.DeadlineExceeded.
func (lockTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// lockOsDir locks a directory of the operating system's filesystem.
func lockOsDir(ctx context.Context, dir string) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fserr.Sanitize(err, dir, "workspace")
	}
	return wslock.Dir(ctx, d)
}
