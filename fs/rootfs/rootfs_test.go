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
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

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
