package faultfs_test

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
)

func TestSymlinkOnOsFs(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	base := afero.NewOsFs()
	writeBase(t, base, target, "T")

	fsys := faultfs.New(base)
	if err := fsys.SymlinkIfPossible(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	got, err := fsys.ReadlinkIfPossible(link)
	if err != nil || got != target {
		t.Errorf("ReadlinkIfPossible = %q, %v; want %q", got, err, target)
	}
	fi, lstat, err := fsys.LstatIfPossible(link)
	if err != nil || !lstat || fi.Mode()&iofs.ModeSymlink == 0 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want a symlink via lstat", fi, lstat, err)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpSymlink, link}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}

	failing := faultfs.New(base, faultfs.FailAt(1))
	link2 := filepath.Join(dir, "link2")
	err = failing.SymlinkIfPossible(target, link2)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "symlink" || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing SymlinkIfPossible = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(link2); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("failed symlink left %s behind (Lstat: %v)", link2, err)
	}
}

func TestSymlinkOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/target", "T")
	fsys := faultfs.New(base, faultfs.CountReads())

	err := fsys.SymlinkIfPossible("/target", "/link")
	var le *os.LinkError
	if !errors.Is(err, afero.ErrNoSymlink) || !errors.As(err, &le) {
		t.Errorf("SymlinkIfPossible = %v, want *os.LinkError wrapping afero.ErrNoSymlink", err)
	}
	if _, err := fsys.ReadlinkIfPossible("/target"); !errors.Is(err, afero.ErrNoReadlink) {
		t.Errorf("ReadlinkIfPossible = %v, want afero.ErrNoReadlink", err)
	}
	if n := fsys.Count(); n != 0 {
		t.Errorf("unsupported link ops were counted: %+v", fsys.Events())
	}
	fi, lstat, err := fsys.LstatIfPossible("/target")
	if err != nil || lstat || fi.Size() != 1 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want the file via Stat", fi, lstat, err)
	}
}

// statOnly hides every optional interface of the wrapped filesystem.
type statOnly struct{ afero.Fs }

func TestLinkOnOsFs(t *testing.T) {
	dir := t.TempDir()
	base := afero.NewOsFs()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	writeBase(t, base, target, "T")
	fsys := faultfs.New(base)

	if err := fsys.Link(target, link); err != nil {
		t.Fatalf("Link = %v", err)
	}
	a, _ := os.Stat(target)
	b, err := os.Stat(link)
	if err != nil || !os.SameFile(a, b) {
		t.Errorf("Link made %v (%v), want a second name of %s", b, err, target)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpLink, link}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}
	if err := fsys.Link(target, link); !errors.Is(err, iofs.ErrExist) || errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("Link onto an existing name = %v, want the base's EEXIST", err)
	}

	failing := faultfs.New(base, faultfs.FailAt(1))
	link2 := filepath.Join(dir, "link2")
	err = failing.Link(target, link2)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "link" || le.New != link2 || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing Link = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(link2); !errors.Is(err, iofs.ErrNotExist) {
		t.Errorf("failed link left %s behind (Lstat: %v)", link2, err)
	}
}

// linkingFs is a base with a Link method of its own, as fs/rootfs has.
type linkingFs struct {
	afero.Fs
	links [][2]string
}

func (l *linkingFs) Link(oldname, newname string) error {
	l.links = append(l.links, [2]string{oldname, newname})
	return nil
}

func TestLinkPassesToBaseLink(t *testing.T) {
	base := &linkingFs{Fs: afero.NewMemMapFs()}
	fsys := faultfs.New(base)
	if err := fsys.Link("/a", "/b"); err != nil || len(base.links) != 1 || base.links[0] != [2]string{"/a", "/b"} {
		t.Errorf("Link = %v, base saw %v; want /a -> /b passed on", err, base.links)
	}
	if n := fsys.Count(); n != 1 {
		t.Errorf("Count = %d, want the link counted", n)
	}
}

func TestLinkOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/target", "T")
	fsys := faultfs.New(base, faultfs.CountReads())
	err := fsys.Link("/target", "/link")
	var le *os.LinkError
	if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &le) {
		t.Errorf("Link = %v, want *os.LinkError wrapping errors.ErrUnsupported", err)
	}
	if n := fsys.Count(); n != 0 {
		t.Errorf("an unsupported link was counted: %+v", fsys.Events())
	}
}

func TestLstatFallsBackToStat(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/f", "abc")
	fsys := faultfs.New(statOnly{base})
	fi, lstat, err := fsys.LstatIfPossible("/f")
	if err != nil || lstat || fi.Size() != 3 {
		t.Errorf("LstatIfPossible = %v, %t, %v; want Stat's result", fi, lstat, err)
	}
}

func TestConcurrentUse(t *testing.T) {
	onBackends(t, func(t *testing.T, base afero.Fs, dir string) {
		const n = 64
		name := func(i int) string {
			return filepath.Join(dir, fmt.Sprintf("f%02d-%s", i, []string{"even", "odd"}[i%2]))
		}
		fsys := faultfs.New(base, faultfs.FailEvery(func(op faultfs.Op, name string) bool {
			return op == faultfs.OpCreate && strings.HasSuffix(name, "-odd")
		}))

		var wg sync.WaitGroup
		stop := make(chan struct{})
		wg.Add(1)
		go func() { // observe concurrently with the writers
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_, _ = fsys.Count(), fsys.Events()
				}
			}
		}()
		errs := make([]error, n)
		var writers sync.WaitGroup
		for i := range n {
			writers.Add(1)
			go func() {
				defer writers.Done()
				errs[i] = afero.WriteFile(fsys, name(i), []byte(name(i)), 0o644)
			}()
		}
		writers.Wait()
		close(stop)
		wg.Wait()

		for i, err := range errs {
			if odd := i%2 == 1; odd != errors.Is(err, faultfs.ErrInjected) {
				t.Errorf("file %d: err = %v", i, err)
			}
			if i%2 == 1 {
				assertAbsent(t, base, name(i))
			} else if got := readBase(t, base, name(i)); got != name(i) {
				t.Errorf("file %d content = %q", i, got)
			}
		}
		evs := fsys.Events()
		if want := n/2*3 + n/2; len(evs) != want || fsys.Count() != want {
			t.Errorf("counted %d events (Count %d), want %d", len(evs), fsys.Count(), want)
		}
		for i, ev := range evs {
			if ev.N != i+1 {
				t.Errorf("event %d has N = %d", i, ev.N)
			}
		}
	})
}

// TestRenameNoReplaceOnOsFs: RenameNoReplace is counted as a rename under the old name,
// renames to a free name, fails with the base's EEXIST on a taken one, and an injected
// failure leaves both names as they were.
func TestRenameNoReplaceOnOsFs(t *testing.T) {
	dir := t.TempDir()
	base := afero.NewOsFs()
	tmp, taken, free := filepath.Join(dir, "tmp"), filepath.Join(dir, "taken"), filepath.Join(dir, "free")
	writeBase(t, base, tmp, "ours")
	writeBase(t, base, taken, "theirs")
	fsys := faultfs.New(base)
	err := fsys.RenameNoReplace(tmp, taken)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skipf("no rename that refuses a name here: %v", err)
	}
	if !errors.Is(err, iofs.ErrExist) || errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("RenameNoReplace onto a taken name = %v, want the base's EEXIST", err)
	}
	if got := readBase(t, base, taken); got != "theirs" {
		t.Errorf("the taken name holds %q, want theirs kept", got)
	}
	failing := faultfs.New(base, faultfs.FailAt(1))
	err = failing.RenameNoReplace(tmp, free)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "rename" || le.Old != tmp || !errors.Is(err, faultfs.ErrInjected) {
		t.Errorf("failing RenameNoReplace = %v, want an injected *os.LinkError", err)
	}
	if _, err := os.Lstat(free); !errors.Is(err, iofs.ErrNotExist) || readBase(t, base, tmp) != "ours" {
		t.Errorf("a failed rename moved the file (Lstat %s: %v)", free, err)
	}
	if err := fsys.RenameNoReplace(tmp, free); err != nil || readBase(t, base, free) != "ours" {
		t.Errorf("RenameNoReplace to a free name = %v", err)
	}
	if diff := cmp.Diff([]opName{{faultfs.OpRename, tmp}, {faultfs.OpRename, tmp}}, opNames(fsys.Events())); diff != "" {
		t.Errorf("counted ops (-want +got):\n%s", diff)
	}
}

func TestRenameNoReplaceOnMemMapFs(t *testing.T) {
	base := afero.NewMemMapFs()
	writeBase(t, base, "/a", "A")
	fsys := faultfs.New(base, faultfs.CountReads())
	err := fsys.RenameNoReplace("/a", "/b")
	var le *os.LinkError
	if !errors.Is(err, errors.ErrUnsupported) || !errors.As(err, &le) {
		t.Errorf("RenameNoReplace = %v, want *os.LinkError wrapping errors.ErrUnsupported", err)
	}
	if n := fsys.Count(); n != 0 || readBase(t, base, "/a") != "A" {
		t.Errorf("an unsupported rename was counted or made: %+v", fsys.Events())
	}
}
