// Package wslock is the lock a commit holds on its workspace: an in-process lock keyed
// by the workspace directory's identity, then, where the platform has one, a kernel lock
// (flock) on the directory itself, so that other processes wait as well.
package wslock

import (
	"context"
	"os"
	"sync"
)

// entries are the in-process locks, by key. An entry lives only while a commit holds or
// waits for it.
var entries = struct {
	sync.Mutex
	m map[any]*entry
}{m: map[any]*entry{}}

type entry struct {
	ch   chan struct{}
	refs int
}

// Acquire takes the in-process lock of key, waiting until it is free or ctx is done, and
// returns its release.
func Acquire(ctx context.Context, key any) (release func(), err error) {
	entries.Lock()
	e := entries.m[key]
	if e == nil {
		e = &entry{ch: make(chan struct{}, 1)}
		entries.m[key] = e
	}
	e.refs++
	entries.Unlock()
	select {
	case e.ch <- struct{}{}:
	case <-ctx.Done():
		drop(key, e)
		return nil, ctx.Err()
	}
	return func() {
		<-e.ch
		drop(key, e)
	}, nil
}

func drop(key any, e *entry) {
	entries.Lock()
	if e.refs--; e.refs == 0 {
		delete(entries.m, key)
	}
	entries.Unlock()
}

// Dir locks the open directory d: first in-process, keyed by the directory's identity
// (device and inode, so two names or two handles of one directory share it), then with
// the kernel lock, polled until it is free or ctx is done. Dir takes d over: the release
// unlocks both and closes d, and d is closed when the lock cannot be had.
func Dir(ctx context.Context, d *os.File) (release func(), err error) {
	unlock, err := lockDir(ctx, d)
	if err != nil {
		d.Close()
		return nil, err
	}
	return func() {
		unlock()
		d.Close()
	}, nil
}

func lockDir(ctx context.Context, d *os.File) (release func(), err error) {
	key, err := identity(d)
	if err != nil {
		return nil, err
	}
	inproc, err := Acquire(ctx, key)
	if err != nil {
		return nil, err
	}
	unlock, err := kernelLock(ctx, d)
	if err != nil {
		inproc()
		return nil, err
	}
	return func() {
		unlock()
		inproc()
	}, nil
}
