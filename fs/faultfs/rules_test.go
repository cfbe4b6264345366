package faultfs_test

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
)

func TestInjectedErrorShape(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		name := filepath.Join(dir, "f")
		fsys := faultfs.New(base, faultfs.FailAt(1))
		f, err := fsys.Create(name)
		if f != nil {
			t.Errorf("Create returned a file %v alongside the injected error", f)
		}
		if !errors.Is(err, faultfs.ErrInjected) {
			t.Errorf("errors.Is(%v, ErrInjected) = false", err)
		}
		if !errors.Is(err, &faultfs.Error{}) {
			t.Errorf("errors.Is(%v, &Error{}) = false", err)
		}
		if errors.Is(err, iofs.ErrPermission) || errors.Is(err, iofs.ErrNotExist) {
			t.Errorf("injected error %v matches an OS sentinel", err)
		}
		var pe *os.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("errors.As(%v, *os.PathError) = false", err)
		}
		if pe.Op != "open" || pe.Path != name {
			t.Errorf("PathError{Op: %q, Path: %q}, want {open, %q}", pe.Op, pe.Path, name)
		}
		var fe *faultfs.Error
		if !errors.As(err, &fe) {
			t.Fatalf("errors.As(%v, *faultfs.Error) = false", err)
		}
		if diff := cmp.Diff(faultfs.Event{N: 1, Op: faultfs.OpCreate, Name: name}, fe.Event); diff != "" {
			t.Errorf("Error.Event (-want +got):\n%s", diff)
		}
		wantMsg := "open " + name + ": faultfs: injected fault at operation 1 (create)"
		if err.Error() != wantMsg {
			t.Errorf("Error() = %q, want %q", err.Error(), wantMsg)
		}
	})
}

func TestBaseErrorIsNotInjected(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", iofs.ErrNotExist)
	if errors.Is(err, faultfs.ErrInjected) || errors.Is(err, &faultfs.Error{}) {
		t.Errorf("%v matches the injected-fault sentinels", err)
	}
}

func TestFailEveryRename(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		p := func(name string) string { return filepath.Join(dir, name) }
		fsys := faultfs.New(base, faultfs.FailEvery(opIs(faultfs.OpRename)))
		for _, name := range []string{"a", "b"} {
			if err := afero.WriteFile(fsys, p(name), []byte(name), 0o644); err != nil {
				t.Fatalf("WriteFile(%s): %v", name, err)
			}
		}
		for _, name := range []string{"a", "b"} {
			err := fsys.Rename(p(name), p(name+".new"))
			var le *os.LinkError
			if !errors.As(err, &le) || !errors.Is(err, faultfs.ErrInjected) {
				t.Fatalf("Rename(%s) = %v, want an injected *os.LinkError", name, err)
			}
			if le.Op != "rename" || le.Old != p(name) || le.New != p(name+".new") {
				t.Errorf("LinkError = %+v", le)
			}
			if got := readBase(t, base, p(name)); got != name {
				t.Errorf("%s = %q after failed rename, want %q", name, got, name)
			}
			assertAbsent(t, base, p(name+".new"))
		}
		if err := fsys.Remove(p("a")); err != nil {
			t.Errorf("Remove(a) = %v, want success: only renames fail", err)
		}
	})
}

func TestFailNthCountsOnlyMatchingOps(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailNth(2, func(op faultfs.Op, name string) bool {
		return op == faultfs.OpWrite && name == "b"
	}))
	var errs []error
	for _, name := range []string{"a", "b", "a", "b", "b"} {
		f, err := fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString("x")
		errs = append(errs, err)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	for i, err := range errs {
		if injected := errors.Is(err, faultfs.ErrInjected); injected != (i == 3) {
			t.Errorf("write %d: err = %v, injected=%t, want injected only for the 2nd write to b", i, err, injected)
		}
	}
}

func TestRulesCombine(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailAt(1), faultfs.FailAt(3))
	var failed []int
	for i := 1; i <= 4; i++ {
		if err := fsys.Mkdir(fmt.Sprint("d", i), 0o755); errors.Is(err, faultfs.ErrInjected) {
			failed = append(failed, i)
		}
	}
	if diff := cmp.Diff([]int{1, 3}, failed); diff != "" {
		t.Errorf("failed ops (-want +got):\n%s", diff)
	}
}

func TestRulePanicsOnInvalidK(t *testing.T) {
	for name, mk := range map[string]func(){
		"FailAt(0)":   func() { faultfs.FailAt(0) },
		"FailNth(-1)": func() { faultfs.FailNth(-1, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			mk()
		})
	}
}

func TestCountReads(t *testing.T) {
	readAll := func(fsys afero.Fs) error {
		if _, err := fsys.Stat("/d/f"); err != nil {
			return err
		}
		if _, _, err := fsys.(afero.Lstater).LstatIfPossible("/d/f"); err != nil {
			return err
		}
		if _, err := afero.ReadFile(fsys, "/d/f"); err != nil {
			return err
		}
		_, err := afero.ReadDir(fsys, "/d")
		return err
	}
	base := afero.NewMemMapFs()
	writeBase(t, base, "/d/f", "content")

	plain := faultfs.New(base, faultfs.FailEvery(nil))
	if err := readAll(plain); err != nil {
		t.Fatalf("reads failed without CountReads: %v", err)
	}
	if n := plain.Count(); n != 0 {
		t.Errorf("Count() = %d without CountReads, want 0: %+v", n, plain.Events())
	}

	counting := faultfs.New(base, faultfs.CountReads())
	if err := readAll(counting); err != nil {
		t.Fatal(err)
	}
	got := map[faultfs.Op]int{}
	for _, ev := range counting.Events() {
		got[ev.Op]++
	}
	// Stat, Lstat, and ReadFile's File.Stat; two opens, two closes; reads
	// by ReadFile (data, then EOF) and ReadDir's Readdir.
	want := map[faultfs.Op]int{faultfs.OpStat: 3, faultfs.OpOpen: 2, faultfs.OpClose: 2, faultfs.OpRead: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counted reads (-want +got):\n%s", diff)
	}

	failRead := faultfs.New(base, faultfs.CountReads(), faultfs.FailNth(1, opIs(faultfs.OpRead)))
	if _, err := afero.ReadFile(failRead, "/d/f"); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("ReadFile with a failing read = %v, want injected", err)
	}
}

func TestOpenFileClassification(t *testing.T) {
	cases := []struct {
		flag int
		want []faultfs.Op // counted ops of OpenFile then Close
	}{
		{os.O_RDONLY, nil},
		{os.O_WRONLY, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_RDWR, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_WRONLY | os.O_APPEND, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_WRONLY | os.O_TRUNC, []faultfs.Op{faultfs.OpOpen, faultfs.OpClose}},
		{os.O_RDONLY | os.O_CREATE, []faultfs.Op{faultfs.OpCreate, faultfs.OpClose}},
		{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, []faultfs.Op{faultfs.OpCreate, faultfs.OpClose}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("flag=%#x", c.flag), func(t *testing.T) {
			base := afero.NewMemMapFs()
			writeBase(t, base, "f", "x")
			fsys := faultfs.New(base)
			f, err := fsys.OpenFile("f", c.flag, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			var got []faultfs.Op
			for _, ev := range fsys.Events() {
				got = append(got, ev.Op)
			}
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("counted ops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSyncOnReadOnlyHandleIsCounted(t *testing.T) {
	dir := t.TempDir()
	fsys := faultfs.New(afero.NewOsFs(), faultfs.FailEvery(opIs(faultfs.OpSync)))
	d, err := fsys.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("directory Sync = %v, want injected", err)
	}
}

func TestReset(t *testing.T) {
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailAt(1))
	if err := fsys.Mkdir("a", 0o755); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("Mkdir(a) = %v, want injected", err)
	}
	fsys.Reset(faultfs.FailAt(2))
	if n, evs := fsys.Count(), fsys.Events(); n != 0 || len(evs) != 0 {
		t.Fatalf("after Reset: Count() = %d, Events() = %+v, want empty", n, evs)
	}
	if err := fsys.Mkdir("a", 0o755); err != nil {
		t.Errorf("Mkdir(a) after Reset = %v, want success (old rule dropped)", err)
	}
	if err := fsys.Mkdir("b", 0o755); !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("Mkdir(b) after Reset = %v, want injected by the new rule", err)
	}
	if got := fsys.Events()[1].N; got != 2 {
		t.Errorf("second event N = %d, want 2", got)
	}
}

func TestName(t *testing.T) {
	if got, want := faultfs.New(afero.NewMemMapFs()).Name(), "faultfs(MemMapFS)"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
}
