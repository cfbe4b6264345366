package rootfs

import (
	"context"

	"github.com/applypatch/applypatch/internal/wslock"
)

// LockWorkspace takes the exclusive lock applypatch commits hold on a workspace: the
// directory dir inside the root is locked in this process and, where the platform has
// one, with the kernel's lock (flock), so commits in other processes wait too. It waits
// until the lock is free or ctx is done, and returns the unlock function.
//
// The lock excludes only the processes that take it: an editor or a tool writing the
// same files without it is not held back.
func (f *Fs) LockWorkspace(ctx context.Context, dir string) (unlock func(), err error) {
	d, err := f.root.Open(local(dir))
	if err != nil {
		return nil, pathError(err, dir)
	}
	return wslock.Dir(ctx, d)
}

// Link creates newname as a hard link to oldname, like [os.Root.Link]. Both names must
// stay inside the root.
func (f *Fs) Link(oldname, newname string) error {
	if err, ok := f.linkWithin(oldname, newname); ok {
		return linkError(err, oldname, newname)
	}
	return linkError(f.root.Link(local(oldname), local(newname)), oldname, newname)
}
