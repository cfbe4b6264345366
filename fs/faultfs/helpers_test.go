package faultfs_test

import (
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
)

// backend is a base filesystem with a writable root directory.
type backend struct {
	name string
	new  func(t *testing.T) (afero.Fs, string)
}

var backends = []backend{
	{"MemMapFs", func(t *testing.T) (afero.Fs, string) {
		base := afero.NewMemMapFs()
		if err := base.MkdirAll("/root", 0o755); err != nil {
			t.Fatal(err)
		}
		return base, "/root"
	}},
	{"OsFs", func(t *testing.T) (afero.Fs, string) {
		return afero.NewOsFs(), t.TempDir()
	}},
}

// onBackends runs fn as a subtest on every backend.
func onBackends(t *testing.T, fn func(t *testing.T, base afero.Fs, dir string)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			base, dir := b.new(t)
			fn(t, base, dir)
		})
	}
}

func opIs(want faultfs.Op) func(faultfs.Op, string) bool {
	return func(op faultfs.Op, _ string) bool { return op == want }
}

func writeBase(t *testing.T, base afero.Fs, name, content string) {
	t.Helper()
	if err := afero.WriteFile(base, name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readBase(t *testing.T, base afero.Fs, name string) string {
	t.Helper()
	data, err := afero.ReadFile(base, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func assertAbsent(t *testing.T, base afero.Fs, name string) {
	t.Helper()
	if _, err := base.Stat(name); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("Stat(%s) on base: err = %v, want not exist", name, err)
	}
}

// errSkipped marks a script step that could not run because an earlier
// step failed to open its file; it makes no filesystem call.
var errSkipped = errors.New("skipped")

// scriptState carries open files between script steps.
type scriptState struct {
	fsys  afero.Fs
	dir   string
	files map[string]afero.File
}

func (s *scriptState) path(name string) string { return filepath.Join(s.dir, name) }

func (s *scriptState) withFile(key string, fn func(afero.File) error) error {
	f, ok := s.files[key]
	if !ok {
		return errSkipped
	}
	return fn(f)
}

func (s *scriptState) open(key string, f afero.File, err error) error {
	if err == nil {
		s.files[key] = f
	}
	return err
}

type step struct {
	desc string
	run  func(s *scriptState) error
}

// script exercises every mutating operation with reads interleaved.
var script = []step{
	{"Mkdir sub", func(s *scriptState) error { return s.fsys.Mkdir(s.path("sub"), 0o755) }},
	{"Create a", func(s *scriptState) error { f, err := s.fsys.Create(s.path("a")); return s.open("w", f, err) }},
	{"Write", func(s *scriptState) error {
		return s.withFile("w", func(f afero.File) error { _, err := f.Write([]byte("hello ")); return err })
	}},
	{"WriteString", func(s *scriptState) error {
		return s.withFile("w", func(f afero.File) error { _, err := f.WriteString("world\n"); return err })
	}},
	{"Sync", func(s *scriptState) error { return s.withFile("w", afero.File.Sync) }},
	{"Close", func(s *scriptState) error { return s.withFile("w", afero.File.Close) }},
	{"Stat a (read)", func(s *scriptState) error { _, err := s.fsys.Stat(s.path("a")); return err }},
	{"Open a (read)", func(s *scriptState) error { f, err := s.fsys.Open(s.path("a")); return s.open("r", f, err) }},
	{"Read (read)", func(s *scriptState) error {
		return s.withFile("r", func(f afero.File) error { _, err := io.ReadAll(f); return err })
	}},
	{"Close read-only (read)", func(s *scriptState) error { return s.withFile("r", afero.File.Close) }},
	{"OpenFile a O_RDWR", func(s *scriptState) error {
		f, err := s.fsys.OpenFile(s.path("a"), os.O_RDWR, 0)
		return s.open("rw", f, err)
	}},
	{"WriteAt", func(s *scriptState) error {
		return s.withFile("rw", func(f afero.File) error { _, err := f.WriteAt([]byte("J"), 6); return err })
	}},
	{"Truncate", func(s *scriptState) error {
		return s.withFile("rw", func(f afero.File) error { return f.Truncate(5) })
	}},
	{"Close rw", func(s *scriptState) error { return s.withFile("rw", afero.File.Close) }},
	{"Rename a sub/b", func(s *scriptState) error { return s.fsys.Rename(s.path("a"), s.path("sub/b")) }},
	{"Chmod", func(s *scriptState) error { return s.fsys.Chmod(s.path("sub/b"), 0o600) }},
	{"Chtimes", func(s *scriptState) error {
		mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		return s.fsys.Chtimes(s.path("sub/b"), mtime, mtime)
	}},
	{"Chown", func(s *scriptState) error { return s.fsys.Chown(s.path("sub/b"), os.Getuid(), os.Getgid()) }},
	{"MkdirAll", func(s *scriptState) error { return s.fsys.MkdirAll(s.path("x/y/z"), 0o755) }},
	{"Remove", func(s *scriptState) error { return s.fsys.Remove(s.path("sub/b")) }},
	{"RemoveAll", func(s *scriptState) error { return s.fsys.RemoveAll(s.path("x")) }},
}

// runScript runs every step and returns each step's error.
func runScript(fsys afero.Fs, dir string) []error {
	s := &scriptState{fsys: fsys, dir: dir, files: map[string]afero.File{}}
	errs := make([]error, len(script))
	for i, st := range script {
		errs[i] = st.run(s)
	}
	return errs
}

type opName struct {
	Op   faultfs.Op
	Name string
}

func opNames(evs []faultfs.Event) []opName {
	out := make([]opName, len(evs))
	for i, ev := range evs {
		out[i] = opName{ev.Op, ev.Name}
	}
	return out
}
