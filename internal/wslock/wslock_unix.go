//go:build unix

package wslock

import (
	"context"
	"errors"
	"os"
	"slices"
	"syscall"
	"time"
)

// dirKey is a directory's identity.
type dirKey struct{ dev, ino uint64 }

func identity(d *os.File) (any, error) {
	k, _, err := statDir(d)
	return k, err
}

// statDir returns the identity and owner of an open directory.
func statDir(d *os.File) (dirKey, uint32, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(d.Fd()), &st); err != nil {
		return dirKey{}, 0, &os.PathError{Op: "fstat", Path: d.Name(), Err: err}
	}
	return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, st.Uid, nil
}

// ancestors opens the directories above d that the rule locks (see the package doc),
// the outermost first: each parent in turn, reached through "..", while it has d's owner
// and is neither "/" nor a directory met already.
func ancestors(d *os.File, key any, name string) []level {
	_, owner, err := statDir(d)
	if err != nil {
		return nil
	}
	seen := map[any]bool{key: true}
	if root, err := os.Open("/"); err == nil {
		if k, _, err := statDir(root); err == nil {
			seen[k] = true
		}
		root.Close()
	}
	var up []level
	for cur := d; ; {
		name = parentName(name)
		p, err := openParent(cur, name)
		if err != nil {
			break
		}
		k, uid, err := statDir(p)
		if err != nil || seen[k] || uid != owner {
			p.Close()
			break
		}
		seen[k] = true
		up = append(up, level{f: p, key: k, name: name, shared: true})
		cur = p
	}
	slices.Reverse(up)
	return up
}

// Poll intervals of a kernel lock held by another process: short at first, so a brief
// commit is followed at once, then longer.
const (
	pollFirst = time.Millisecond
	pollMax   = 20 * time.Millisecond
)

// kernelLock takes flock (LOCK_SH for a shared level, else LOCK_EX) on the level's
// directory without blocking, retrying until it is free or ctx is done: a blocking flock
// could not be cancelled.
func kernelLock(ctx context.Context, lv level, w *waiter) (func(), error) {
	fd, how := int(lv.f.Fd()), syscall.LOCK_EX
	if lv.shared {
		how = syscall.LOCK_SH
	}
	key := lv.key.(dirKey)
	wait := pollFirst
	for {
		err := syscall.Flock(fd, how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { syscall.Flock(fd, syscall.LOCK_UN) }, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			if errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.ENOLCK) {
				return func() {}, nil // the filesystem has no kernel lock; the in-process lock stays
			}
			return nil, &os.PathError{Op: "flock", Path: lv.name, Err: err}
		}
		if w.due() {
			w.tell(lv.name, func() int { return holder(key) })
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, waitError(ctx, lv.name, holder(key))
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}
