package cli

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/spf13/afero"
)

// slowEnv names a variable for tests only, and not a supported interface: when it holds
// a duration in milliseconds, every rename and removal inside the workspace waits that
// long first, so a test can stop a commit midway with a signal. It may change or go
// away at any time.
const slowEnv = "APPLYPATCH_TEST_SLOW_MS"

// slowed wraps the workspace filesystem when slowEnv asks for it.
func slowed(ws afero.Fs) afero.Fs {
	ms, err := strconv.Atoi(os.Getenv(slowEnv))
	if err != nil || ms <= 0 {
		return ws
	}
	if _, ok := ws.(locker); !ok {
		return ws
	}
	if _, ok := ws.(interface{ Link(o, n string) error }); !ok {
		return ws
	}
	return &slowFs{Fs: ws, wait: time.Duration(ms) * time.Millisecond}
}

// locker is a filesystem that supplies the workspace lock (see applypatch.Options).
type locker interface {
	LockWorkspace(ctx context.Context, dir string) (unlock func(), err error)
}

// slowFs delays the operations that change names.
type slowFs struct {
	afero.Fs
	wait time.Duration
}

func (s *slowFs) Rename(oldname, newname string) error {
	time.Sleep(s.wait)
	return s.Fs.Rename(oldname, newname)
}

func (s *slowFs) Remove(name string) error {
	time.Sleep(s.wait)
	return s.Fs.Remove(name)
}

// LockWorkspace and Link pass through to the wrapped filesystem, which has them.
func (s *slowFs) LockWorkspace(ctx context.Context, dir string) (func(), error) {
	return s.Fs.(locker).LockWorkspace(ctx, dir)
}

func (s *slowFs) Link(oldname, newname string) error {
	return s.Fs.(interface{ Link(o, n string) error }).Link(oldname, newname)
}
