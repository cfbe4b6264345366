//go:build linux

package noreplace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRenameatRefusesATakenName: a rename to a free name moves the file; one to a name
// that exists fails with fs.ErrExist and leaves both files as they were, between two
// directories' descriptors as by names, relative or absolute (X3).
func TestRenameatRefusesATakenName(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "absent"
		}
		return string(b)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sub, err := os.Open(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	write("tmp", "ours")
	write("sub/taken", "theirs")
	err = Renameat(int(d.Fd()), "tmp", int(sub.Fd()), "taken")
	if Unsupported(err) {
		t.Skipf("this filesystem cannot refuse a name atomically: %v", err)
	}
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("rename onto a taken name: %v, want fs.ErrExist", err)
	}
	if read("tmp") != "ours" || read("sub/taken") != "theirs" {
		t.Fatalf("a refused rename changed the files: tmp %q, sub/taken %q", read("tmp"), read("sub/taken"))
	}
	if err := Renameat(int(d.Fd()), "tmp", int(sub.Fd()), "free"); err != nil {
		t.Fatal(err)
	}
	if read("tmp") != "absent" || read("sub/free") != "ours" {
		t.Fatalf("after a rename to a free name: tmp %q, sub/free %q", read("tmp"), read("sub/free"))
	}
	t.Chdir(dir)
	if err := Rename("sub/free", "sub/taken"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("rename by working-directory names onto a taken name: %v, want fs.ErrExist", err)
	}
	if err := Rename("sub/free", filepath.Join(dir, "back")); err != nil || read("back") != "ours" {
		t.Fatalf("rename by working-directory names: %v, back %q", err, read("back"))
	}
	if err := Renameat(int(d.Fd()), "missing", int(d.Fd()), "x"); !errors.Is(err, fs.ErrNotExist) || Unsupported(err) {
		t.Fatalf("rename of a missing file: %v, want fs.ErrNotExist", err)
	}
}
