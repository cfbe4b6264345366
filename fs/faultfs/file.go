package faultfs

import (
	"os"

	"github.com/spf13/afero"
)

// file wraps a base file so its operations are observed too.
type file struct {
	ffs      *Fs
	f        afero.File
	name     string // the path the file was opened with
	writable bool   // opened for writing: Close is then mutating
}

func (f *file) call(op Op, osOp string, mutating bool) call {
	return pathCall(op, osOp, f.name, mutating)
}

// Close observes [OpClose]. Even when the fault is injected, the base file
// is closed before the injected error is returned.
func (f *file) Close() error {
	c := f.call(OpClose, "close", f.writable)
	t, injected := f.ffs.begin(c.op, c.name, c.mutating)
	closeErr := f.f.Close()
	err := closeErr
	if injected != nil {
		err = c.wrap(injected)
	}
	f.ffs.end(t, err)
	return err
}

func (f *file) Read(p []byte) (int, error) {
	return observe(f.ffs, f.call(OpRead, "read", false), func() (int, error) { return f.f.Read(p) })
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	return observe(f.ffs, f.call(OpRead, "read", false), func() (int, error) { return f.f.ReadAt(p, off) })
}

func (f *file) Seek(offset int64, whence int) (int64, error) { return f.f.Seek(offset, whence) }

func (f *file) Write(p []byte) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.Write(p) })
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.WriteAt(p, off) })
}

func (f *file) WriteString(s string) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.WriteString(s) })
}

func (f *file) Truncate(size int64) error {
	return observeErr(f.ffs, f.call(OpWrite, "truncate", true), func() error { return f.f.Truncate(size) })
}

func (f *file) Sync() error {
	return observeErr(f.ffs, f.call(OpSync, "sync", true), f.f.Sync)
}

func (f *file) Name() string { return f.f.Name() }

func (f *file) Readdir(count int) ([]os.FileInfo, error) {
	return observe(f.ffs, f.call(OpRead, "readdir", false), func() ([]os.FileInfo, error) { return f.f.Readdir(count) })
}

func (f *file) Readdirnames(n int) ([]string, error) {
	return observe(f.ffs, f.call(OpRead, "readdir", false), func() ([]string, error) { return f.f.Readdirnames(n) })
}

func (f *file) Stat() (os.FileInfo, error) {
	return observe(f.ffs, f.call(OpStat, "stat", false), f.f.Stat)
}
