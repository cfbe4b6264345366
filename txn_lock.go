package applypatch

import (
	"context"
	"os"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/wslock"
	"github.com/spf13/afero"
)

// A WorkspaceLocker is a filesystem that supplies the exclusive lock a commit holds on
// its workspace, from its check of the baselines through its last write and any
// rollback, and that recovery holds while it repairs an interrupted commit. [Commit] and
// [Recover] use it when the workspace filesystem (Options.WorkspaceFs, else the
// filesystem given) implements it; package fs/rootfs does, with a kernel lock.
//
// Without one, commits on the operating system's filesystem ([afero.OsFs]) lock the
// workspace directory with the kernel's lock (flock where the platform has it), keyed in
// the process by the directory itself, so two processes, or two filesystem values over
// one directory, never interleave. Other filesystems (an [afero.MemMapFs], say) are
// locked within the process only.
//
// The lock excludes only those who take it: an editor or a tool writing the same files
// without it is not held back; the baseline checks just before each write catch most of
// those, but not a write that lands between a check and the write it guards.
type WorkspaceLocker interface {
	// LockWorkspace waits until it holds the lock of the workspace directory dir (a name
	// in this filesystem) or ctx is done, and returns the unlock function.
	LockWorkspace(ctx context.Context, dir string) (unlock func(), err error)
}

// lockWorkspace takes the lock of the fence's workspace for one commit or recovery.
func lockWorkspace(ctx context.Context, fsys afero.Fs, f *fence, opts *Options) (func(), error) {
	if l, ok := opts.WorkspaceFs.(WorkspaceLocker); ok {
		return l.LockWorkspace(ctx, "/")
	}
	if l, ok := fsys.(WorkspaceLocker); ok {
		return l.LockWorkspace(ctx, f.real)
	}
	if _, ok := fsys.(*afero.OsFs); ok {
		return lockOsDir(ctx, f.real)
	}
	return wslock.Acquire(ctx, lockKey(fsys))
}

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
	end := batch(f.files)
	return func() {
		end()
		unlock()
	}, nil
}
