package rootfs

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/applypatch/applypatch/internal/wslock"
)

// LockWorkspace takes the exclusive lock applypatch commits hold on a workspace: the
// directory dir inside the root is locked in this process and, where the platform has
// one, with the kernel's lock (flock), so commits in other processes wait too. First,
// from the outermost down, it takes a shared lock on each directory above dir that has
// dir's owner, up to and not including "/" or the first of another owner, within the
// root or above it, so that a commit in a workspace nested in this one, or holding it,
// waits as well (the rule of the applypatch Options doc); those directories are opened
// for reading and locked, nothing more. It waits until every lock is had or ctx is done,
// and returns the unlock function.
//
// The lock excludes only the processes that take it: an editor or a tool writing the
// same files without it is not held back. While the lock of the whole root ("/") is
// held, a batch uses the directories it keeps without checking each again before each
// use (see [Fs.Batch]).
func (f *Fs) LockWorkspace(ctx context.Context, dir string) (unlock func(), err error) {
	d, err := f.root.Open(local(dir))
	if err != nil {
		return nil, pathError(err, dir)
	}
	osUnlock, err := wslock.Dir(ctx, d)
	if err != nil || local(dir) != "." {
		return osUnlock, err
	}
	release := f.kept.hold() // kept directories are trusted while the lock is held
	var once sync.Once
	return func() {
		once.Do(func() {
			release()
			osUnlock()
		})
	}, nil
}

// Link creates newname as a hard link to oldname, like [os.Root.Link]. Both names must
// stay inside the root.
func (f *Fs) Link(oldname, newname string) error {
	defer f.kept.made()
	if err, ok := f.linkWithin(oldname, newname); ok {
		return linkError(err, oldname, newname)
	}
	return linkError(f.root.Link(local(oldname), local(newname)), oldname, newname)
}

// RenameNoReplace renames oldname to newname like [Fs.Rename], except that it never
// replaces a file: where newname exists it fails, with an error matching [fs.ErrExist],
// and both names stay as they were, however another program races it. Where the
// platform or the filesystem cannot refuse a name so, it fails with an error matching
// [errors.ErrUnsupported] and does nothing. Both names must stay inside the root.
func (f *Fs) RenameNoReplace(oldname, newname string) error {
	defer f.kept.made()
	end := f.Batch() // renameat2 works between directories' descriptors
	defer end()
	if err, ok := f.renameWithin(oldname, newname, true); ok {
		return linkError(err, oldname, newname)
	}
	return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: errors.ErrUnsupported}
}
