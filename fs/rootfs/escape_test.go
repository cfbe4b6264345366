package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

func TestEscapeDotDot(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.fsys, "inside.txt", "in")
	before := e.snapshotOutside(t)

	ops := map[string]func() error{
		"Create ../outside.txt": func() error {
			_, err := e.fsys.Create("../outside.txt")
			return err
		},
		"Create ../ws-sibling/x (prefix sibling)": func() error {
			_, err := e.fsys.Create("../ws-sibling/x")
			return err
		},
		"OpenFile a/../../outside/secret.txt O_TRUNC": func() error {
			_, err := e.fsys.OpenFile("a/../../outside/secret.txt", os.O_WRONLY|os.O_TRUNC, 0)
			return err
		},
		"Mkdir ../newdir": func() error { return e.fsys.Mkdir("../newdir", 0o755) },
		"MkdirAll ../x/y": func() error { return e.fsys.MkdirAll("../x/y", 0o755) },
		"Rename to ../moved.txt": func() error {
			return e.fsys.Rename("inside.txt", "../moved.txt")
		},
		"Rename from ../outside/secret.txt": func() error {
			return e.fsys.Rename("../outside/secret.txt", "stolen.txt")
		},
		"Remove ../outside/secret.txt":    func() error { return e.fsys.Remove("../outside/secret.txt") },
		"RemoveAll ../outside":            func() error { return e.fsys.RemoveAll("../outside") },
		"Chmod ../outside/secret.txt":     func() error { return e.fsys.Chmod("../outside/secret.txt", 0o777) },
		"Chtimes ../outside/secret.txt":   func() error { return e.fsys.Chtimes("../outside/secret.txt", time.Time{}, time.Time{}) },
		"SymlinkIfPossible newname ../ln": func() error { return e.fsys.SymlinkIfPossible("inside.txt", "../ln") },
	}
	for what, op := range ops {
		wantEscape(t, what, op())
	}
	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestEscapeSymlinkToOutsideDir(t *testing.T) {
	e := newEnv(t)
	mustSymlink(t, filepath.Join("..", "outside"), e.host("link"))
	writeFile(t, e.fsys, "inside.txt", "in")
	before := e.snapshotOutside(t)

	_, err := e.fsys.Create("link/x")
	wantEscape(t, "Create link/x", err)
	wantEscape(t, "WriteFile /link/x", afero.WriteFile(e.fsys, "/link/x", []byte("x"), 0o644))
	wantEscape(t, "MkdirAll link/sub", e.fsys.MkdirAll("link/sub", 0o755))
	wantEscape(t, "Rename into link/", e.fsys.Rename("inside.txt", "link/inside.txt"))
	_, err = e.fsys.Open("link/secret.txt")
	wantEscape(t, "Open link/secret.txt", err)

	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestEscapeSymlinkToOutsideFileTruncate(t *testing.T) {
	e := newEnv(t)
	mustSymlink(t, filepath.Join("..", "outside", "secret.txt"), e.host("secret-link"))
	before := e.snapshotOutside(t)

	_, err := e.fsys.OpenFile("secret-link", os.O_WRONLY|os.O_TRUNC, 0)
	wantEscape(t, "OpenFile secret-link O_WRONLY|O_TRUNC", err)
	wantEscape(t, "Chmod secret-link", e.fsys.Chmod("secret-link", 0o777))

	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestEscapeAbsoluteSymlink(t *testing.T) {
	e := newEnv(t)
	mustSymlink(t, e.outside, e.host("absdir"))
	mustSymlink(t, filepath.Join(e.outside, "secret.txt"), e.host("absfile"))
	// An absolute target naming a place inside the root is refused as well:
	// os.Root does not follow absolute links at all.
	writeFile(t, e.fsys, "inside.txt", "in")
	mustSymlink(t, e.host("inside.txt"), e.host("abs-inside"))
	before := e.snapshotOutside(t)

	_, err := e.fsys.Create("absdir/x")
	wantEscape(t, "Create absdir/x", err)
	_, err = e.fsys.OpenFile("absfile", os.O_RDWR|os.O_TRUNC, 0)
	wantEscape(t, "OpenFile absfile O_TRUNC", err)
	_, err = e.fsys.Open("abs-inside")
	wantEscape(t, "Open abs-inside", err)

	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestEscapeDanglingSymlink(t *testing.T) {
	e := newEnv(t)
	mustSymlink(t, filepath.Join("..", "outside", "created.txt"), e.host("dangling"))
	mustSymlink(t, filepath.Join(e.outside, "created-abs.txt"), e.host("dangling-abs"))
	before := e.snapshotOutside(t)

	_, err := e.fsys.Create("dangling")
	wantEscape(t, "Create dangling", err)
	wantEscape(t, "WriteFile dangling-abs", afero.WriteFile(e.fsys, "dangling-abs", []byte("x"), 0o644))
	// O_EXCL never follows a final link: the link itself exists.
	_, err = e.fsys.OpenFile("/dangling", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("OpenFile /dangling O_EXCL = %v, want ErrExist", err)
	}

	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestTOCTOUSwapDirForSymlink(t *testing.T) {
	e := newEnv(t)
	if err := e.fsys.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}
	// The check: sub is a real directory inside the root.
	fi, _, err := e.fsys.LstatIfPossible("sub")
	if err != nil || !fi.IsDir() {
		t.Fatalf("check: Lstat(sub) = %v, %v; want a directory", fi, err)
	}
	// The attacker's move between check and use.
	if err := os.Remove(e.host("sub")); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join("..", "outside"), e.host("sub"))
	before := e.snapshotOutside(t)

	// The use.
	_, err = e.fsys.OpenFile("sub/f", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	wantEscape(t, "OpenFile sub/f after swap", err)
	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

// TestTOCTOUConcurrentSwap flips sub between a real directory and a link to
// the outside while writers keep creating sub/f. No write may land outside.
func TestTOCTOUConcurrentSwap(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(e.host("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join("..", "outside"), e.host("parked-link"))
	before := e.snapshotOutside(t)

	stop := make(chan struct{})
	var flipper sync.WaitGroup
	var flipErr error
	flipper.Add(1)
	go func() {
		defer flipper.Done()
		flipErr = flipUntil(stop, e.host("sub"), e.host("parked-dir"), e.host("parked-link"))
	}()

	var ok, escaped, missing atomic.Int64
	deadline := time.Now().Add(3 * time.Second)
	var writers sync.WaitGroup
	var unexpected atomic.Value
	for w := 0; w < 4; w++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for time.Now().Before(deadline) && (ok.Load() < 200 || escaped.Load() < 200) {
				switch err := afero.WriteFile(e.fsys, "sub/f", []byte("payload"), 0o644); {
				case err == nil:
					ok.Add(1)
				case IsEscape(err):
					escaped.Add(1)
				case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
					// sub was momentarily absent, or changed kind
					// while os.Root was resolving it.
					missing.Add(1)
				default:
					unexpected.Store(err)
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	flipper.Wait()
	if flipErr != nil {
		t.Fatal(flipErr)
	}
	t.Logf("writes: %d inside, %d refused as escapes, %d met no directory", ok.Load(), escaped.Load(), missing.Load())

	if err, _ := unexpected.Load().(error); err != nil {
		t.Errorf("unexpected write error: %v", err)
	}
	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
	if escaped.Load() == 0 {
		t.Fatal("no write ever met the symlink state; the race was not exercised")
	}
}

// flipUntil swaps sub between the real directory and the link, by renames,
// until stop is closed, and leaves sub as the directory.
func flipUntil(stop <-chan struct{}, sub, parkedDir, parkedLink string) error {
	// swap parks the current sub under park and moves in to sub.
	swap := func(park, in string) error {
		if err := os.Rename(sub, park); err != nil {
			return err
		}
		return os.Rename(in, sub)
	}
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if err := swap(parkedDir, parkedLink); err != nil {
			return err
		}
		if err := swap(parkedLink, parkedDir); err != nil {
			return err
		}
	}
}
