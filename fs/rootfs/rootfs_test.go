package rootfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// env is a workspace opened as an Fs, inside a base directory that also
// holds directories the Fs must never reach.
type env struct {
	fsys    *Fs
	base    string // host parent of everything
	ws      string // host path of the root
	outside string // host directory outside the root, holding secret.txt
}

// newEnv builds base/{ws, outside/secret.txt, ws-sibling/} and opens ws.
func newEnv(t *testing.T) env {
	t.Helper()
	base := t.TempDir()
	e := env{
		base:    base,
		ws:      filepath.Join(base, "ws"),
		outside: filepath.Join(base, "outside"),
	}
	for _, dir := range []string{e.ws, e.outside, filepath.Join(base, "ws-sibling")} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.outside, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := Open(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	if os.Getenv(batchedEnv) != "" {
		t.Cleanup(fsys.Batch())
	}
	e.fsys = fsys
	return e
}

// host returns the host path of a slash-separated name inside the root.
func (e env) host(name string) string {
	return filepath.Join(e.ws, filepath.FromSlash(name))
}

// snapshotOutside records every entry under base except the root: its
// kind, and its content or link target.
func (e env) snapshotOutside(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(e.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == e.ws {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(e.base, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			snap[rel] = fmt.Sprintf("link %q %v", target, err)
		case d.IsDir():
			snap[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			snap[rel] = fmt.Sprintf("file %q %v", b, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// mustSymlink creates a host symbolic link, skipping the test where the
// platform does not let the user create one.
func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("cannot create symlinks here: %v", err)
		}
		t.Fatal(err)
	}
}

// wantEscape fails the test unless err is os.Root's escape error.
func wantEscape(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want the escape to be refused", what)
	}
	if !IsEscape(err) {
		t.Fatalf("%s: error %v, want %q", what, err, escapeText)
	}
}

// writeFile creates name through the Fs with content, closing it.
func writeFile(t *testing.T, fsys afero.Fs, name, content string) {
	t.Helper()
	if err := afero.WriteFile(fsys, name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, prefix := range []string{"", "/"} {
		t.Run(fmt.Sprintf("prefix=%q", prefix), func(t *testing.T) {
			e := newEnv(t)
			p := func(name string) string { return prefix + name }

			if err := e.fsys.MkdirAll(p("a/b/c"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := e.fsys.Mkdir(p("a/d"), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := e.fsys.Create(p("a/b/c/f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.Name(), p("a/b/c/f.txt"); got != want {
				t.Errorf("Name() = %q, want %q", got, want)
			}
			if _, err := f.WriteString("hello\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(e.host("a/b/c/f.txt")); err != nil || string(b) != "hello\n" {
				t.Fatalf("host file = %q, %v; want %q", b, err, "hello\n")
			}

			r, err := e.fsys.Open(p("a/b/c/f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil || string(b) != "hello\n" {
				t.Fatalf("read back %q, %v", b, err)
			}

			fi, err := e.fsys.Stat(p("a/b/c/f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != 6 || fi.Name() != "f.txt" || fi.IsDir() {
				t.Errorf("Stat = size %d name %q dir %v", fi.Size(), fi.Name(), fi.IsDir())
			}

			if err := e.fsys.Chmod(p("a/b/c/f.txt"), 0o600); err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" {
				hfi, err := os.Stat(e.host("a/b/c/f.txt"))
				if err != nil {
					t.Fatal(err)
				}
				if hfi.Mode().Perm() != 0o600 {
					t.Errorf("mode after Chmod = %v, want 0600", hfi.Mode().Perm())
				}
				if err := e.fsys.Chown(p("a/b/c/f.txt"), os.Getuid(), os.Getgid()); err != nil {
					t.Errorf("Chown to self: %v", err)
				}
			}

			mtime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			if err := e.fsys.Chtimes(p("a/b/c/f.txt"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			if hfi, err := os.Stat(e.host("a/b/c/f.txt")); err != nil || !hfi.ModTime().Equal(mtime) {
				t.Errorf("host mtime = %v, %v; want %v", hfi.ModTime(), err, mtime)
			}

			if err := e.fsys.Rename(p("a/b/c/f.txt"), p("a/d/g.txt")); err != nil {
				t.Fatal(err)
			}
			if _, err := e.fsys.Stat(p("a/b/c/f.txt")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("old name after Rename: %v, want not exist", err)
			}
			if b, err := os.ReadFile(e.host("a/d/g.txt")); err != nil || string(b) != "hello\n" {
				t.Errorf("renamed host file = %q, %v", b, err)
			}

			if err := e.fsys.Remove(p("a/d/g.txt")); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(e.host("a/d/g.txt")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after Remove host stat: %v", err)
			}
			if err := e.fsys.RemoveAll(p("a")); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(e.host("a")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after RemoveAll host stat: %v", err)
			}
			if err := e.fsys.RemoveAll(p("never/existed")); err != nil {
				t.Errorf("RemoveAll of a missing name = %v, want nil", err)
			}
			if _, err := os.Stat(e.ws); err != nil {
				t.Errorf("root gone after RemoveAll: %v", err)
			}
		})
	}
}

func TestPathForms(t *testing.T) {
	e := newEnv(t)
	if err := os.MkdirAll(e.host("a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.host("a/b.txt"), []byte("B"), 0o644); err != nil {
		t.Fatal(err)
	}

	sameFile := []string{
		"a/b.txt", "/a/b.txt", "./a/b.txt", "//a/b.txt", "a//b.txt", "a/./b.txt",
		"a/../a/b.txt", "/../a/b.txt", "/a/../../a/b.txt",
	}
	for _, name := range sameFile {
		b, err := afero.ReadFile(e.fsys, name)
		if err != nil || string(b) != "B" {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, b, err, "B")
		}
	}

	for _, name := range []string{".", "/", "./", "//"} {
		names, err := afero.ReadDir(e.fsys, name)
		if err != nil || len(names) != 1 || names[0].Name() != "a" {
			t.Errorf("ReadDir(%q) = %v, %v; want [a]", name, names, err)
		}
	}

	if _, err := e.fsys.Stat(""); err == nil {
		t.Error(`Stat("") succeeded, want an error`)
	}
	for _, name := range []string{"../a/b.txt", "a/../../ws/a/b.txt", "../ws-sibling/x"} {
		_, err := e.fsys.Open(name)
		wantEscape(t, fmt.Sprintf("Open(%q)", name), err)
	}
}

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

func TestReadlinkAndLstat(t *testing.T) {
	e := newEnv(t)
	if err := e.fsys.Mkdir("dir", 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.fsys, "dir/target.txt", "T")
	if err := e.fsys.SymlinkIfPossible("target.txt", "/dir/rel-link"); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	mustSymlink(t, filepath.Join("..", "outside"), e.host("out-link"))

	for name, want := range map[string]string{
		"dir/rel-link":  "target.txt",
		"/dir/rel-link": "target.txt",
		"out-link":      filepath.Join("..", "outside"),
	} {
		got, err := e.fsys.ReadlinkIfPossible(name)
		if err != nil || got != want {
			t.Errorf("ReadlinkIfPossible(%q) = %q, %v; want %q", name, got, err, want)
		}
	}

	fi, lstatCalled, err := e.fsys.LstatIfPossible("dir/rel-link")
	if err != nil || !lstatCalled {
		t.Fatalf("LstatIfPossible = %v, %v, %v", fi, lstatCalled, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat mode = %v, want a symlink", fi.Mode())
	}
	fi, err = e.fsys.Stat("dir/rel-link")
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != 1 {
		t.Errorf("Stat through link = %v, %v; want the 1-byte target", fi, err)
	}
	// Lstat of a link pointing outside does not follow it, so it succeeds.
	fi, _, err = e.fsys.LstatIfPossible("out-link")
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(out-link) = %v, %v; want the link itself", fi, err)
	}
	_, err = e.fsys.Stat("out-link")
	wantEscape(t, "Stat(out-link)", err)
}

func TestSymlinkTargetStoredVerbatim(t *testing.T) {
	e := newEnv(t)
	abs := filepath.Join(e.outside, "secret.txt")
	targets := map[string]string{
		"to-abs":     abs,
		"to-dotdot":  filepath.Join("..", "outside", "secret.txt"),
		"to-sibling": "inside.txt",
	}
	writeFile(t, e.fsys, "inside.txt", "in")
	for link, target := range targets {
		if err := e.fsys.SymlinkIfPossible(target, link); err != nil {
			t.Skipf("cannot create symlinks here: %v", err)
		}
		got, err := os.Readlink(e.host(link))
		if err != nil || got != target {
			t.Errorf("host Readlink(%s) = %q, %v; want %q stored verbatim", link, got, err, target)
		}
	}
	before := e.snapshotOutside(t)
	for _, link := range []string{"to-abs", "to-dotdot"} {
		_, err := e.fsys.OpenFile(link, os.O_WRONLY|os.O_TRUNC, 0)
		wantEscape(t, "OpenFile "+link, err)
	}
	if b, err := afero.ReadFile(e.fsys, "to-sibling"); err != nil || string(b) != "in" {
		t.Errorf("ReadFile(to-sibling) = %q, %v; want the link followed inside the root", b, err)
	}
	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestRemoveAllRefusesRootAndKeepsLinkTargets(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.fsys, "keep.txt", "k")
	mustSymlink(t, filepath.Join("..", "outside"), e.host("out-link"))
	before := e.snapshotOutside(t)

	for _, name := range []string{".", "/"} {
		if err := e.fsys.RemoveAll(name); err == nil {
			t.Errorf("RemoveAll(%q) succeeded, want the root refused", name)
		}
	}
	if _, err := os.Stat(e.host("keep.txt")); err != nil {
		t.Errorf("root content removed: %v", err)
	}
	if err := e.fsys.RemoveAll("out-link"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(e.host("out-link")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("link still present after RemoveAll: %v", err)
	}
	if diff := cmp.Diff(before, e.snapshotOutside(t)); diff != "" {
		t.Errorf("outside of the root changed (-before +after):\n%s", diff)
	}
}

func TestErrorsDoNotDiscloseHostPath(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.fsys, "file.txt", "f")
	if err := e.fsys.MkdirAll("dir/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join("..", "outside"), e.host("out-link"))

	errs := map[string]error{}
	record := func(what string, err error) { errs[what] = err }
	_, err := e.fsys.Open("missing/x")
	record("Open missing", err)
	_, err = e.fsys.Create("../outside.txt")
	record("Create escape", err)
	_, err = e.fsys.OpenFile("out-link/x", os.O_WRONLY|os.O_CREATE, 0o644)
	record("OpenFile through link", err)
	_, err = e.fsys.Stat("/missing")
	record("Stat", err)
	_, _, err = e.fsys.LstatIfPossible("missing")
	record("Lstat", err)
	_, err = e.fsys.ReadlinkIfPossible("file.txt")
	record("Readlink of a file", err)
	record("Mkdir existing", e.fsys.Mkdir("dir", 0o755))
	record("MkdirAll over file", e.fsys.MkdirAll("file.txt/x", 0o755))
	record("Remove non-empty", e.fsys.Remove("dir"))
	record("RemoveAll root", e.fsys.RemoveAll("/"))
	record("Rename missing", e.fsys.Rename("missing", "other"))
	record("Rename escape", e.fsys.Rename("file.txt", "../x"))
	record("Symlink existing", e.fsys.SymlinkIfPossible("t", "file.txt"))
	record("Chmod", e.fsys.Chmod("missing", 0o644))
	record("Chtimes", e.fsys.Chtimes("missing", time.Now(), time.Now()))
	if runtime.GOOS != "windows" {
		record("Chown", e.fsys.Chown("missing", os.Getuid(), os.Getgid()))
	}

	f, err := e.fsys.Open("file.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Readdir(1)
	record("File.Readdir on a file", err)
	_, err = f.Write([]byte("x"))
	record("File.Write read-only", err)
	record("File.Truncate read-only", f.Truncate(0))
	_, err = f.ReadAt(make([]byte, 1), -1)
	record("File.ReadAt negative", err)
	f.Close()
	_, err = f.Read(make([]byte, 1))
	record("File.Read closed", err)
	_, err = f.Stat()
	record("File.Stat closed", err)
	record("File.Close twice", f.Close())

	secrets := []string{e.ws, e.base, filepath.Dir(e.base), filepath.Base(filepath.Dir(e.base))}
	for what, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", what)
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q discloses host path part %q", what, err, s)
			}
		}
	}
	if name := f.Name(); name != "file.txt" {
		t.Errorf("File.Name() = %q, want the name as given", name)
	}
}

func TestErrorsKeepCauseAndGivenNames(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.fsys, "file.txt", "f")

	_, err := e.fsys.Open("/missing.txt")
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != "/missing.txt" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(/missing.txt) = %#v; want *os.PathError with the given path and ErrNotExist", err)
	}
	_, err = e.fsys.OpenFile("./file.txt", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if !errors.As(err, &pe) || pe.Path != "./file.txt" || !errors.Is(err, fs.ErrExist) {
		t.Errorf("OpenFile O_EXCL existing = %#v; want *os.PathError with the given path and ErrExist", err)
	}
	_, err = e.fsys.Create("a/../../x")
	if !errors.As(err, &pe) || pe.Path != "a/../../x" || !IsEscape(err) {
		t.Errorf("Create escape = %#v; want *os.PathError with the given path", err)
	}
	err = e.fsys.Rename("/missing", "./elsewhere")
	var le *os.LinkError
	if !errors.As(err, &le) || le.Old != "/missing" || le.New != "./elsewhere" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Rename = %#v; want *os.LinkError with the given names and ErrNotExist", err)
	}
}

func TestAferoHelpers(t *testing.T) {
	e := newEnv(t)
	if err := e.fsys.MkdirAll("/docs", 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.fsys, "/docs/readme.md", "# readme\n")
	b, err := afero.ReadFile(e.fsys, "docs/readme.md")
	if err != nil || string(b) != "# readme\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}

	tmp, err := afero.TempFile(e.fsys, "docs", "edit-*.tmp")
	if err != nil {
		t.Fatalf("TempFile: %v", err)
	}
	name := tmp.Name()
	if !strings.HasPrefix(name, filepath.Join("docs", "edit-")) || !strings.HasSuffix(name, ".tmp") {
		t.Errorf("TempFile name %q, want docs/edit-*.tmp", name)
	}
	if _, err := tmp.WriteString("# new\n"); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(e.host(filepath.ToSlash(name))); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("temp file on host: %v, %v; want mode 0600", fi, err)
		}
	}
	// The atomic-replace pattern: the temp file's Name feeds back into the Fs.
	if err := e.fsys.Rename(name, "docs/readme.md"); err != nil {
		t.Fatalf("Rename(TempFile.Name(), ...): %v", err)
	}
	if b, err := os.ReadFile(e.host("docs/readme.md")); err != nil || string(b) != "# new\n" {
		t.Errorf("after replace = %q, %v", b, err)
	}

	dir, err := afero.TempDir(e.fsys, "docs", "work")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	if fi, err := os.Stat(e.host(filepath.ToSlash(dir))); err != nil || !fi.IsDir() {
		t.Errorf("TempDir %q on host: %v, %v", dir, fi, err)
	}

	var walked []string
	err = afero.Walk(e.fsys, "/", func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, filepath.ToSlash(p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(walked)
	want := []string{"/", "/docs", "/docs/readme.md", "/" + filepath.ToSlash(dir)}
	sort.Strings(want)
	if diff := cmp.Diff(want, walked); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}

	if err := fstest.TestFS(afero.NewIOFS(e.fsys), "docs/readme.md"); err != nil {
		t.Errorf("fstest.TestFS: %v", err)
	}
}

func TestAccessorsAndClose(t *testing.T) {
	dir := t.TempDir()
	fsys, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fsys.Name() != "rootfs" {
		t.Errorf("Name() = %q", fsys.Name())
	}
	if fsys.Dir() != dir || fsys.Root().Name() != dir {
		t.Errorf("Dir() = %q, Root().Name() = %q; want %q", fsys.Dir(), fsys.Root().Name(), dir)
	}
	f, err := fsys.Create("kept-open.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("still works"); err != nil {
		t.Errorf("write to a file opened before Close: %v", err)
	}
	f.Close()
	if _, err := fsys.Create("after-close.txt"); err == nil {
		t.Error("Create after Close succeeded")
	}
	if _, err := Open(filepath.Join(dir, "does-not-exist")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing dir = %v, want ErrNotExist", err)
	}
}

func TestNewNilPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(nil) did not panic")
		}
	}()
	New(nil)
}

func TestIsEscape(t *testing.T) {
	e := newEnv(t)
	_, escape := e.fsys.Open("../x")
	_, notExist := e.fsys.Open("missing")
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("boom"), false},
		{notExist, false},
		{fs.ErrPermission, false},
		{escape, true},
		{fmt.Errorf("applying hunk: %w", escape), true},
	} {
		if got := IsEscape(tc.err); got != tc.want {
			t.Errorf("IsEscape(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestMissingDirectoryOnTheWay: F1. Every operation on a name below a directory that does
// not exist fails as not existing, naming the name as given, and creates nothing; the
// batched suite runs it inside a batch too, where the kept directories answer it at once.
func TestMissingDirectoryOnTheWay(t *testing.T) {
	e := newEnv(t)
	const name = "missing/deeper/x.txt"
	for op, call := range map[string]func() error{
		"Open":   func() error { _, err := e.fsys.Open(name); return err },
		"Create": func() error { _, err := e.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); return err },
		"Stat":   func() error { _, err := e.fsys.Stat(name); return err },
		"Lstat":  func() error { _, _, err := e.fsys.LstatIfPossible(name); return err },
		"Mkdir":  func() error { return e.fsys.Mkdir(name, 0o755) },
		"Remove": func() error { return e.fsys.Remove(name) },
		"Chmod":  func() error { return e.fsys.Chmod(name, 0o600) },
		"Rename": func() error { return e.fsys.Rename(name, "y.txt") },
	} {
		err := call()
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s(%s) = %v, want a not-exist error", op, name, err)
			continue
		}
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe) && pe.Path == name:
		case errors.As(err, &le) && le.Old == name:
		default:
			t.Errorf("%s(%s) = %v, want the error to name %s", op, name, err, name)
		}
	}
	if entries, err := os.ReadDir(e.ws); err != nil || len(entries) != 0 {
		t.Errorf("the workspace holds %v (%v), want nothing created", entries, err)
	}
}
