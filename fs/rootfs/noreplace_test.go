package rootfs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenameNoReplace: a rename to a free name moves the file, within a directory and
// between two; one to a taken name, a planted link among them, fails with fs.ErrExist
// and leaves both names as they were; one leaving the root fails; nothing outside the
// root changes. Outside a batch, in one, and in one under the workspace lock (X3, F1).
func TestRenameNoReplace(t *testing.T) {
	for _, mode := range []string{"alone", "batch", "locked"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			switch mode {
			case "batch":
				t.Cleanup(e.fsys.Batch())
			case "locked":
				unlock, err := e.fsys.LockWorkspace(context.Background(), "/")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(unlock)
				t.Cleanup(e.fsys.Batch())
			}
			if err := e.fsys.Mkdir("/d", 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, e.fsys, "/a", "A")
			writeFile(t, e.fsys, "/d/taken", "theirs")
			mustSymlink(t, filepath.Join(e.outside, "planted"), e.host("d/link"))
			outside := e.snapshotOutside(t)

			for _, name := range []string{"/d/taken", "/d/link"} {
				err := e.fsys.RenameNoReplace("/a", name)
				if errors.Is(err, errors.ErrUnsupported) {
					t.Skipf("no rename that refuses a name here: %v", err)
				}
				var le *os.LinkError
				if !errors.Is(err, fs.ErrExist) || !errors.As(err, &le) || le.Old != "/a" || le.New != name {
					t.Errorf("RenameNoReplace(/a, %s) = %v, want an *os.LinkError matching fs.ErrExist", name, err)
				}
			}
			if got := readFile(t, e.fsys, "/d/taken"); got != "theirs" {
				t.Errorf("d/taken = %q, want theirs kept", got)
			}
			if target, err := os.Readlink(e.host("d/link")); err != nil || target != filepath.Join(e.outside, "planted") {
				t.Errorf("d/link = %q, %v; want the planted link kept", target, err)
			}
			if err := e.fsys.RenameNoReplace("/a", "/../outside/a"); err == nil {
				t.Error("RenameNoReplace out of the root succeeded")
			}
			if err := e.fsys.RenameNoReplace("/a", "/b"); err != nil {
				t.Fatalf("RenameNoReplace within a directory: %v", err)
			}
			if err := e.fsys.RenameNoReplace("/b", "/d/b"); err != nil {
				t.Fatalf("RenameNoReplace between directories: %v", err)
			}
			if got := readFile(t, e.fsys, "/d/b"); got != "A" {
				t.Errorf("d/b = %q, want A", got)
			}
			if _, err := e.fsys.Stat("/a"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a is still there after its rename: %v", err)
			}
			if diff := cmp.Diff(outside, e.snapshotOutside(t)); diff != "" {
				t.Errorf("outside the root changed (-before +after):\n%s", diff)
			}
		})
	}
}

// readFile reads the file name of the root from the host.
func readFile(t *testing.T, fsys *Fs, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fsys.Dir(), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
