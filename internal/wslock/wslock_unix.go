//go:build unix

package wslock

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// dirKey is a directory's identity.
type dirKey struct{ dev, ino uint64 }

func identity(d *os.File) (any, error) {
	fi, err := d.Stat()
	if err != nil {
		return nil, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
	}
	return d.Name(), nil
}

// Poll intervals of a kernel lock held by another process: short at first, so a brief
// commit is followed at once, then longer.
const (
	pollFirst = time.Millisecond
	pollMax   = 20 * time.Millisecond
)

// kernelLock takes flock(LOCK_EX) on d without blocking, retrying until it is free or
// ctx is done: a blocking flock could not be cancelled.
func kernelLock(ctx context.Context, d *os.File) (func(), error) {
	fd := int(d.Fd())
	wait := pollFirst
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { syscall.Flock(fd, syscall.LOCK_UN) }, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			if errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.ENOLCK) {
				return func() {}, nil // the filesystem has no kernel lock; the in-process lock stays
			}
			return nil, &os.PathError{Op: "flock", Path: d.Name(), Err: err}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}
