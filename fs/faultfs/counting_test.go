package faultfs_test

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"github.com/spf13/afero/mem"

	"github.com/applypatch/applypatch/fs/faultfs"
)

func TestCountsMutatingOpsOnly(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		fsys := faultfs.New(base)
		for i, err := range runScript(fsys, dir) {
			if err != nil {
				t.Fatalf("step %q: %v", script[i].desc, err)
			}
		}
		p := func(name string) string { return filepath.Join(dir, name) }
		want := []opName{
			{faultfs.OpMkdir, p("sub")},
			{faultfs.OpCreate, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpSync, p("a")},
			{faultfs.OpClose, p("a")},
			{faultfs.OpOpen, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpWrite, p("a")},
			{faultfs.OpClose, p("a")},
			{faultfs.OpRename, p("a")},
			{faultfs.OpChmod, p("sub/b")},
			{faultfs.OpChtimes, p("sub/b")},
			{faultfs.OpChown, p("sub/b")},
			{faultfs.OpMkdir, p("x/y/z")},
			{faultfs.OpRemove, p("sub/b")},
			{faultfs.OpRemove, p("x")},
		}
		evs := fsys.Events()
		if diff := cmp.Diff(want, opNames(evs)); diff != "" {
			t.Errorf("counted ops (-want +got):\n%s", diff)
		}
		if got := fsys.Count(); got != len(want) {
			t.Errorf("Count() = %d, want %d", got, len(want))
		}
		for i, ev := range evs {
			if ev.N != i+1 || ev.Err != nil {
				t.Errorf("event %d = %+v, want N=%d and no error", i, ev, i+1)
			}
		}
	})
}

// TestFailAtFailsExactlyTheKthMutatingOp runs the script once per k, each
// time in a fresh directory, and checks that the k-th counted operation (the
// same one the reference run made k-th) is the only one that fails.
func TestFailAtFailsExactlyTheKthMutatingOp(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		// Each run sees its directory as "/", so event names are comparable.
		runIn := func(sub string, opts ...faultfs.Option) (*faultfs.Fs, []error) {
			if err := base.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
				t.Fatal(err)
			}
			fsys := faultfs.New(afero.NewBasePathFs(base, filepath.Join(dir, sub)), opts...)
			return fsys, runScript(fsys, "/")
		}
		ref, _ := runIn("ref")
		want := opNames(ref.Events())
		total := len(want)
		if total < 17 {
			t.Fatalf("reference run counted only %d ops", total)
		}
		for k := 1; k <= total+1; k++ {
			fsys, errs := runIn(fmt.Sprint("k", k), faultfs.FailAt(k))
			evs := fsys.Events()
			checkOnlyKthFailed(t, k, total, errs, evs)
			upTo := min(k, total)
			if len(evs) < upTo {
				t.Fatalf("k=%d: only %d ops counted", k, len(evs))
			}
			if diff := cmp.Diff(want[:upTo], opNames(evs[:upTo])); diff != "" {
				t.Errorf("k=%d: ops up to the failure differ from the reference run (-want +got):\n%s", k, diff)
			}
		}
	})
}

// checkOnlyKthFailed checks that the k-th event, and only it, was injected,
// and that exactly one script step reported that same error.
func checkOnlyKthFailed(t *testing.T, k, total int, errs []error, evs []faultfs.Event) {
	t.Helper()
	for i, ev := range evs {
		if injected := errors.Is(ev.Err, faultfs.ErrInjected); injected != (i == k-1) {
			t.Errorf("k=%d: event %+v injected=%t", k, ev, injected)
		}
	}
	var failed []string
	for i, err := range errs {
		if errors.Is(err, faultfs.ErrInjected) {
			failed = append(failed, script[i].desc)
			if k > len(evs) || err != evs[k-1].Err {
				t.Errorf("k=%d: step %q returned %v, not the logged error of event %d", k, script[i].desc, err, k)
			}
		}
	}
	wantFailed := 1
	if k > total {
		wantFailed = 0
	}
	if len(failed) != wantFailed {
		t.Errorf("k=%d: steps failed by injection: %q, want %d", k, failed, wantFailed)
	}
}

func TestFailedOpLeavesBaseUntouched(t *testing.T) {
	type tc struct {
		name   string
		target faultfs.Op
		act    func(fsys afero.Fs, p func(string) string) error
		check  func(t *testing.T, base afero.Fs, p func(string) string)
	}
	unchanged := func(t *testing.T, base afero.Fs, p func(string) string) {
		if got := readBase(t, base, p("f")); got != "original" {
			t.Errorf("f = %q, want %q", got, "original")
		}
	}
	writeVia := func(fn func(afero.File) error) func(afero.Fs, func(string) string) error {
		return func(fsys afero.Fs, p func(string) string) error {
			f, err := fsys.OpenFile(p("f"), os.O_RDWR, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			return fn(f)
		}
	}
	cases := []tc{
		{"Create", faultfs.OpCreate,
			func(fsys afero.Fs, p func(string) string) error { _, err := fsys.Create(p("new")); return err },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("new")) }},
		{"CreateOverExisting", faultfs.OpCreate,
			func(fsys afero.Fs, p func(string) string) error { _, err := fsys.Create(p("f")); return err },
			unchanged},
		{"OpenFileTrunc", faultfs.OpOpen,
			func(fsys afero.Fs, p func(string) string) error {
				_, err := fsys.OpenFile(p("f"), os.O_WRONLY|os.O_TRUNC, 0)
				return err
			},
			unchanged},
		{"Write", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.Write([]byte("XX")); return err }), unchanged},
		{"WriteAt", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.WriteAt([]byte("XX"), 3); return err }), unchanged},
		{"WriteString", faultfs.OpWrite, writeVia(func(f afero.File) error { _, err := f.WriteString("XX"); return err }), unchanged},
		{"Truncate", faultfs.OpWrite, writeVia(func(f afero.File) error { return f.Truncate(0) }), unchanged},
		{"Rename", faultfs.OpRename,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Rename(p("f"), p("g")) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				unchanged(t, base, p)
				assertAbsent(t, base, p("g"))
			}},
		{"Remove", faultfs.OpRemove,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Remove(p("f")) },
			unchanged},
		{"RemoveAll", faultfs.OpRemove,
			func(fsys afero.Fs, p func(string) string) error { return fsys.RemoveAll(p("d")) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				if got := readBase(t, base, p("d/child")); got != "child" {
					t.Errorf("d/child = %q, want %q", got, "child")
				}
			}},
		{"Mkdir", faultfs.OpMkdir,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Mkdir(p("m"), 0o755) },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("m")) }},
		{"MkdirAll", faultfs.OpMkdir,
			func(fsys afero.Fs, p func(string) string) error { return fsys.MkdirAll(p("m/n"), 0o755) },
			func(t *testing.T, base afero.Fs, p func(string) string) { assertAbsent(t, base, p("m")) }},
		{"Chmod", faultfs.OpChmod,
			func(fsys afero.Fs, p func(string) string) error { return fsys.Chmod(p("f"), 0o600) },
			func(t *testing.T, base afero.Fs, p func(string) string) {
				fi, err := base.Stat(p("f"))
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != 0o644 {
					t.Errorf("mode = %v, want 0644", got)
				}
			}},
		{"Chtimes", faultfs.OpChtimes,
			func(fsys afero.Fs, p func(string) string) error {
				old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
				return fsys.Chtimes(p("f"), old, old)
			},
			func(t *testing.T, base afero.Fs, p func(string) string) {
				fi, err := base.Stat(p("f"))
				if err != nil {
					t.Fatal(err)
				}
				if fi.ModTime().Year() == 2001 {
					t.Errorf("mtime changed to %v", fi.ModTime())
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
				p := func(name string) string { return filepath.Join(dir, name) }
				writeBase(t, base, p("f"), "original")
				if err := base.Chmod(p("f"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := base.Mkdir(p("d"), 0o755); err != nil {
					t.Fatal(err)
				}
				writeBase(t, base, p("d/child"), "child")

				fsys := faultfs.New(base, faultfs.FailEvery(opIs(c.target)))
				if err := c.act(fsys, p); !errors.Is(err, faultfs.ErrInjected) {
					t.Fatalf("err = %v, want injected", err)
				}
				c.check(t, base, p)
			})
		})
	}
}

func TestFailedCloseStillClosesBaseFile(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		name := filepath.Join(dir, "f")
		fsys := faultfs.New(base, faultfs.FailEvery(opIs(faultfs.OpClose)))
		f, err := fsys.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("data"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); !errors.Is(err, faultfs.ErrInjected) {
			t.Fatalf("Close() = %v, want injected", err)
		}
		_, err = f.WriteString("more")
		if !errors.Is(err, os.ErrClosed) && !errors.Is(err, mem.ErrFileClosed) {
			t.Errorf("Write after failed Close = %v, want the base's closed-file error", err)
		}
		if got := readBase(t, base, name); got != "data" {
			t.Errorf("content = %q, want %q", got, "data")
		}
	})
}

func TestEventsLog(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		p := func(name string) string { return filepath.Join(dir, name) }
		fsys := faultfs.New(base, faultfs.FailAt(5))
		if err := fsys.Mkdir(p("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := afero.WriteFile(fsys, p("x/a"), []byte("A"), 0o644); err != nil {
			t.Fatal(err)
		}
		renameErr := fsys.Rename(p("x/a"), p("x/b"))
		if _, err := fsys.Stat(p("x/a")); err != nil { // a read: not logged
			t.Fatal(err)
		}

		injected := &os.LinkError{Op: "rename", Old: p("x/a"), New: p("x/b"), Err: &faultfs.Error{
			Event: faultfs.Event{N: 5, Op: faultfs.OpRename, Name: p("x/a")},
		}}
		want := []faultfs.Event{
			{N: 1, Op: faultfs.OpMkdir, Name: p("x")},
			{N: 2, Op: faultfs.OpCreate, Name: p("x/a")},
			{N: 3, Op: faultfs.OpWrite, Name: p("x/a")},
			{N: 4, Op: faultfs.OpClose, Name: p("x/a")},
			{N: 5, Op: faultfs.OpRename, Name: p("x/a"), Err: injected},
		}
		got := fsys.Events()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Events() (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(injected, renameErr); diff != "" {
			t.Errorf("Rename error (-want +got):\n%s", diff)
		}

		got[0].Name = "mutated"
		if fsys.Events()[0].Name != p("x") {
			t.Error("Events() returned the internal log, not a copy")
		}
	})
}

func TestEventsRecordBaseErrors(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		fsys := faultfs.New(base)
		err := fsys.Remove(filepath.Join(dir, "missing"))
		if !errors.Is(err, iofs.ErrNotExist) {
			t.Fatalf("Remove(missing) = %v, want not exist", err)
		}
		evs := fsys.Events()
		if len(evs) != 1 || evs[0].Err != err {
			t.Fatalf("Events() = %+v, want one event carrying %v", evs, err)
		}
		if errors.Is(evs[0].Err, faultfs.ErrInjected) {
			t.Error("a base error is reported as injected")
		}
	})
}
