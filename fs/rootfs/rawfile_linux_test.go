//go:build linux

package rootfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"testing"

	"github.com/spf13/afero"
)

// TestBatchFileActsAsOsFile checks that a file opened in a batch, used through its bare
// descriptor, answers as the os.File of the same file does: reads to the end, reads at an
// offset, the open file's info, a mode set through it, directory entries, and use after
// Close (PERF1).
func TestBatchFileActsAsOsFile(t *testing.T) {
	e := newEnv(t)
	fsys, err := Open(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	defer fsys.Batch()()
	if err := fsys.MkdirAll("d/e", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.OpenFile("d/f.txt", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(*File).file.(*rawFile); !ok {
		t.Fatalf("a file opened in a batch is a %T, want a *rawFile", f.(*File).file)
	}
	if n, err := f.WriteString("hello"); n != 5 || err != nil {
		t.Fatalf("WriteString = %d, %v", n, err)
	}
	if n, err := f.WriteAt([]byte("J"), 0); n != 1 || err != nil {
		t.Fatalf("WriteAt = %d, %v", n, err)
	}
	if err := f.(*File).Chmod(0o4640); err != nil {
		t.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.Stat(e.host("d/f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Name() != want.Name() || fi.Size() != want.Size() || fi.Mode() != want.Mode() ||
		!fi.ModTime().Equal(want.ModTime()) || fi.IsDir() || !os.SameFile(want, mustStat(t, fsys, "d/f.txt")) {
		t.Errorf("Stat = %s %d %v %v, want %s %d %v %v", fi.Name(), fi.Size(), fi.Mode(), fi.ModTime(),
			want.Name(), want.Size(), want.Mode(), want.ModTime())
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "Jello" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
	buf := make([]byte, 4)
	if n, err := f.ReadAt(buf, 3); n != 2 || !errors.Is(err, io.EOF) || string(buf[:n]) != "lo" {
		t.Errorf("ReadAt past the end = %d %q, %v; want 2 \"lo\", EOF", n, buf[:n], err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a second Close = %v, want ErrClosed", err)
	}
	if _, err := f.Read(buf); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close = %v, want ErrClosed", err)
	}
	a, err := fsys.OpenFile("d/f.txt", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteAt([]byte("x"), 0); err == nil {
		t.Error("WriteAt on a file opened with O_APPEND succeeded")
	}
	a.Close()
	d, err := fsys.Open("d/e/..")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"e", "f.txt"}) {
		t.Errorf("Readdirnames = %v, %v", names, err)
	}
	if b, err := afero.ReadFile(fsys, "d/f.txt"); err != nil || string(b) != "Jello" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
}

func mustStat(t *testing.T, fsys *Fs, name string) fs.FileInfo {
	t.Helper()
	fi, err := fsys.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}
