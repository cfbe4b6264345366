// Package statetest keeps the journal key of a test binary, and of the processes it
// starts, in a directory of its own, never in the state directory of whoever runs the
// tests.
package statetest

import "os"

// marker names the directory a test binary chose, so that the processes it starts (which
// inherit it) keep using it.
const marker = "APPLYPATCH_TEST_STATE"

// Isolate points XDG_STATE_HOME at a new temporary directory, unless this process was
// started by a test binary that did so already. Call it first thing in TestMain, and the
// function it returns once the tests have run: it removes the directory this process made,
// and does nothing in a process that inherited one.
func Isolate() (done func()) {
	if d := os.Getenv(marker); d != "" && os.Getenv("XDG_STATE_HOME") == d {
		return func() {}
	}
	dir, err := os.MkdirTemp("", "applypatch-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	os.Setenv(marker, dir)
	return func() { os.RemoveAll(dir) }
}

// Main is m with done run after its tests, for a TestMain that hands m to a function that
// exits the process itself (testscript.Main).
func Main(m interface{ Run() int }, done func()) interface{ Run() int } {
	return mainThen{m, done}
}

type mainThen struct {
	m    interface{ Run() int }
	done func()
}

func (t mainThen) Run() int {
	defer t.done()
	return t.m.Run()
}

// Env is the environment a test gives a process it starts with an environment of its
// own (a testscript), so that it shares the test's key.
func Env() []string {
	return []string{"XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME"), marker + "=" + os.Getenv(marker)}
}
