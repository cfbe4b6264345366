// Package wslock is the lock a commit holds on its workspace. The rule, for a directory
// of the operating system: a commit takes a shared lock on each directory above its
// workspace that has the workspace's owner, from the outermost down, stopping below "/"
// and at the first that has another owner or cannot be opened, then the exclusive lock
// of the workspace itself, and releases them in reverse. So two commits whose workspaces
// nest (p and p/sub) exclude each other, while siblings (p/a and p/b) do not, and the
// one order along a chain of directories cannot deadlock.
//
// Each lock is taken first in the process, a shared or exclusive lock keyed by the
// directory's identity (device and inode, so two names or two handles of one directory
// share it), then, where the platform has one, with the kernel's lock (flock) on the
// directory, so that other processes wait as well. A wait is bounded by its context, and
// a context made by [Watch] is told when it lasts.
package wslock

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Acquire takes the exclusive in-process lock of key, for a filesystem with no directory
// of the operating system to lock, waiting until it is free or ctx is done; name is what
// a notice and a [*WaitError] call it. It returns the release; when ctx is done already,
// just the context's error.
func Acquire(ctx context.Context, key any, name string) (release func(), err error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return acquire(ctx, key, false, name, waiterOf(ctx))
}

// level is one directory of a chain to lock: its handle, identity and name, and whether
// its lock is shared.
type level struct {
	f      *os.File
	key    any
	name   string
	shared bool
}

// Dir locks the open directory d by the rule of the package: shared locks on the
// directories above it that have its owner, then its own exclusive lock, each waited for
// until it is free or ctx is done: a wait that ends is a [*WaitError], and when ctx is done
// already, Dir returns just the context's error. Dir takes d over: the release unlocks everything and
// closes d, and d is closed when the lock cannot be had.
func Dir(ctx context.Context, d *os.File) (release func(), err error) {
	if ctx.Err() != nil { // done before any wait: not a lock to be had
		d.Close()
		return nil, context.Cause(ctx)
	}
	name, w := filepath.Clean(d.Name()), waiterOf(ctx)
	key, err := identity(d)
	if err != nil {
		d.Close()
		return nil, err
	}
	return lockAll(ctx, append(ancestors(d, key, name), level{f: d, key: key, name: name}), w)
}

// lockAll takes the levels' locks in order, and returns the release of them all, in
// reverse; a lock that cannot be had releases those taken and closes the handles left.
func lockAll(ctx context.Context, levels []level, w *waiter) (release func(), err error) {
	var held []func()
	releaseAll := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i]()
		}
	}
	for i, lv := range levels {
		r, err := lockLevel(ctx, lv, w)
		if err != nil {
			releaseAll()
			for _, rest := range levels[i+1:] {
				rest.f.Close()
			}
			return nil, err
		}
		held = append(held, r)
	}
	return releaseAll, nil
}

// Dirs locks several open directories at once, each by the rule of the package (the
// directories above it shared, itself exclusive): a commit that writes outside its
// workspace holds the directories it writes in as well. The levels of all the chains are
// merged (a directory held exclusive by one chain and shared by another is held
// exclusive) and taken in the order of their names, so that any two callers, and a
// caller of [Dir], take the locks they share in one order and cannot deadlock. Dirs takes
// the handles over as Dir does.
func Dirs(ctx context.Context, ds []*os.File) (release func(), err error) {
	if ctx.Err() != nil {
		for _, d := range ds {
			d.Close()
		}
		return nil, context.Cause(ctx)
	}
	byKey := map[any]int{} // the index in all of each directory's level
	var all []level
	add := func(lv level) {
		if i, ok := byKey[lv.key]; ok {
			all[i].shared = all[i].shared && lv.shared
			lv.f.Close()
			return
		}
		byKey[lv.key], all = len(all), append(all, lv)
	}
	for _, d := range ds {
		name := filepath.Clean(d.Name())
		key, err := identity(d)
		if err != nil {
			d.Close()
			continue // not lockable: the other chains still are
		}
		for _, lv := range ancestors(d, key, name) {
			add(lv)
		}
		add(level{f: d, key: key, name: name})
	}
	slices.SortStableFunc(all, func(a, b level) int { return strings.Compare(a.name, b.name) })
	return lockAll(ctx, all, waiterOf(ctx))
}

// lockLevel takes one directory's lock, in the process then in the kernel. It takes the
// handle over: the release closes it, and so does a failure.
func lockLevel(ctx context.Context, lv level, w *waiter) (release func(), err error) {
	inproc, err := acquire(ctx, lv.key, lv.shared, lv.name, w)
	if err != nil {
		lv.f.Close()
		return nil, err
	}
	unlock, err := kernelLock(ctx, lv, w)
	if err != nil {
		inproc()
		lv.f.Close()
		return nil, err
	}
	return func() {
		unlock()
		inproc()
		lv.f.Close()
	}, nil
}

// parentName is the name of the directory above the one called name.
func parentName(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Dir(name)
	}
	return filepath.Join(name, "..")
}
