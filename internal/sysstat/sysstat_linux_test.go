//go:build linux

package sysstat

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestInfoAgreesWithOs checks that an Info decodes a stat result exactly as os.Lstat does,
// for each file type and the set-id and sticky bits.
func TestInfoAgreesWithOs(t *testing.T) {
	dir := t.TempDir()
	names := map[string]func(string) error{
		"file":   func(p string) error { return os.WriteFile(p, []byte("x"), 0o640) },
		"dir":    func(p string) error { return os.Mkdir(p, 0o750) },
		"link":   func(p string) error { return os.Symlink("file", p) },
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"sticky": func(p string) error { return os.Mkdir(p, 0o777|os.ModeSticky) },
		"setid": func(p string) error {
			if err := os.WriteFile(p, nil, 0o755); err != nil {
				return err
			}
			return os.Chmod(p, 0o755|os.ModeSetuid|os.ModeSetgid)
		},
	}
	for name, make := range names {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		want, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		got := &Info{Base: name}
		if err := syscall.Lstat(p, &got.Stat); err != nil {
			t.Fatal(err)
		}
		if got.Mode() != want.Mode() || got.Size() != want.Size() || !got.ModTime().Equal(want.ModTime()) ||
			got.IsDir() != want.IsDir() || got.Name() != want.Name() {
			t.Errorf("%s: Info says %v %d %v, os says %v %d %v", name, got.Mode(), got.Size(), got.ModTime(),
				want.Mode(), want.Size(), want.ModTime())
		}
		if !os.SameFile(want, want) || got.Sys().(*syscall.Stat_t).Ino != want.Sys().(*syscall.Stat_t).Ino {
			t.Errorf("%s: Sys is not the stat result", name)
		}
	}
}
