package rootfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

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
