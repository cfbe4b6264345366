package rootfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

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
