package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// noReplaceFiles is the baseline of the tests of a path created meanwhile: d/ exists,
// so no directory of the commit's stands between the other program and its file.
var noReplaceFiles = map[string]fixtureFile{
	"a.txt":   {"one\n", 0o644},
	"src.txt": {"moved\n", 0o640},
	"d/keep":  {"kept\n", 0o644},
}

// updateFirst updates a.txt before the step that meets the other program's file, so
// that rollback has something of its own to undo.
const updateFirst = "*** Update File: a.txt\n@@\n-one\n+ONE\n"

// createdMeanwhile are the steps that create a path: an Add, and a Move's destination.
var createdMeanwhile = []struct {
	name, target, payload string
	wrote                 string // what a clean commit leaves at target
}{
	{"Add", "d/new.txt", "*** Begin Patch\n" + updateFirst + "*** Add File: d/new.txt\n+ours\n*** End Patch\n", "ours\n"},
	{"Move", "d/moved.txt", "*** Begin Patch\n" + updateFirst + "*** Update File: src.txt\n*** Move to: d/moved.txt\n@@\n-moved\n+MOVED\n*** End Patch\n", "MOVED\n"},
}

// writeBefore is a faultfs rule that fails nothing: just before the first creation of
// a temporary file for target, it runs write, as another program (an editor, a build
// tool) that creates target after the commit's last check of it and before its write.
// write goes to the directory itself, past the faultfs, which a rule must not use.
func writeBefore(target string, write func()) faultfs.Rule {
	var done atomic.Bool
	prefix := "." + filepath.Base(target) + ".applypatch-"
	return faultfs.FailEvery(func(op faultfs.Op, name string) bool {
		if op == faultfs.OpCreate && strings.HasPrefix(filepath.Base(name), prefix) && done.CompareAndSwap(false, true) {
			write()
		}
		return false
	})
}

// TestCreatedMeanwhileIsNotReplaced has another program create the path an Add, or a
// Move's destination, writes, after the commit checked it and before the commit puts
// its file there, on the OS filesystem and through a root: the other program's file is
// kept byte for byte, the commit fails with the conflict a stale baseline gives, and
// rollback leaves the tree at its baseline apart from that file, with no temporary
// file or journal left (X3, X5, X12).
func TestCreatedMeanwhileIsNotReplaced(t *testing.T) {
	for _, b := range linkCrashBackends {
		for _, c := range createdMeanwhile {
			// The other program's bytes may be the very bytes the commit writes: its
			// file is still not the commit's to remove.
			for kind, theirs := range map[string]string{"other": "the other program's file\n", "same": c.wrote} {
				t.Run(fmt.Sprintf("%s/%s/%s-bytes", b.name, c.name, kind), func(t *testing.T) {
					createdMeanwhileRun(t, b, c.target, c.payload, []byte(theirs))
				})
			}
		}
	}
}

// createdMeanwhileRun applies payload with another program writing theirs at target
// after the commit's last check of it, and checks what the commit did.
func createdMeanwhileRun(t *testing.T, b linkCrashFs, target, payload string, theirs []byte) {
	dir := t.TempDir()
	writeFixture(t, afero.NewOsFs(), dir, noReplaceFiles)
	before := readTree(t, afero.NewOsFs(), dir)
	wrote := false
	fsys, opts, _ := b.opts(t, dir, writeBefore(target, func() {
		wrote = true
		if err := os.WriteFile(filepath.Join(dir, target), theirs, 0o644); err != nil {
			t.Error(err)
		}
	}))
	_, err := applypatch.Apply(context.Background(), fsys, payload, opts)
	if !wrote {
		t.Fatal("the other program never wrote")
	}
	after := readTree(t, afero.NewOsFs(), dir)
	if e, ok := after[target]; !ok || e.data != string(theirs) {
		t.Errorf("%s = %+v, want the other program's %q", target, e, theirs)
	}
	checkTaken(t, err, target)
	delete(after, target)
	if diff := treeDiff(before, after); len(diff) > 0 {
		t.Errorf("besides %s, these differ from the baseline: %v", target, diff)
	}
}

// TestLinkPlantedAtCreatedPath has another program put a symbolic link, leading out of
// the workspace to a file that does not exist, at the path an Add or a Move's destination
// creates, after the commit's last check of it: the file is never written through the
// link (the rename or hard link that places it refuses the name), the link is kept, the
// commit fails with the conflict of a path taken, and every other write is undone (F1,
// X3).
func TestLinkPlantedAtCreatedPath(t *testing.T) {
	for _, b := range linkCrashBackends {
		for _, c := range createdMeanwhile {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "planted-target")
				writeFixture(t, afero.NewOsFs(), dir, noReplaceFiles)
				before := readTree(t, afero.NewOsFs(), dir)
				fsys, opts, _ := b.opts(t, dir, writeBefore(c.target, func() {
					if err := os.Symlink(outside, filepath.Join(dir, c.target)); err != nil {
						t.Error(err)
					}
				}))
				_, err := applypatch.Apply(context.Background(), fsys, c.payload, opts)
				checkTaken(t, err, c.target)
				if _, err := os.Lstat(outside); !os.IsNotExist(err) {
					t.Errorf("the commit wrote through the planted link: %v", err)
				}
				if got, err := os.Readlink(filepath.Join(dir, c.target)); err != nil || got != outside {
					t.Errorf("the planted link is %q, %v; want it kept", got, err)
				}
				os.Remove(filepath.Join(dir, c.target)) // the other program's; the rest must be the baseline
				if diff := treeDiff(before, readTree(t, afero.NewOsFs(), dir)); len(diff) > 0 {
					t.Errorf("besides %s, these differ from the baseline: %v", c.target, diff)
				}
			})
		}
	}
}

// checkTaken asserts that a commit failed with the conflict of a path taken meanwhile,
// all its other writes undone.
func checkTaken(t *testing.T, err error, target string) {
	t.Helper()
	var conflict *applypatch.ConflictError
	if !errors.As(err, &conflict) || conflict.Reason != applypatch.ConflictChanged || !slices.Contains(conflict.Paths, target) {
		t.Fatalf("Apply = %v, want a conflict naming %s", err, target)
	}
	if errors.As(err, new(*applypatch.IncompleteRollbackError)) || !strings.Contains(err.Error(), "nothing was applied") {
		t.Errorf("Apply = %v, want everything restored", err)
	}
}

// TestCreatedPathWithoutHardLinks runs the Add and the Move where the filesystem has no
// hard links (the in-memory one, and the OS filesystem behind afero's BasePathFs): the
// commit renames its files into place as before, the check just before each step then
// the only guard, and applies (X3, X4).
func TestCreatedPathWithoutHardLinks(t *testing.T) {
	layers := map[string]func(t *testing.T) afero.Fs{
		"MemMapFs":   func(*testing.T) afero.Fs { return afero.NewMemMapFs() },
		"BasePathFs": func(t *testing.T) afero.Fs { return afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()) },
	}
	for name, layer := range layers {
		for _, c := range createdMeanwhile {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				fsys := layer(t)
				writeFixture(t, fsys, "/ws", noReplaceFiles)
				ffs := faultfs.New(fsys)
				if _, err := applypatch.Apply(context.Background(), ffs, c.payload, &applypatch.Options{Workspace: "/ws"}); err != nil {
					t.Fatalf("Apply = %v", err)
				}
				after := readTree(t, fsys, "/ws")
				if got := after[c.target].data; got != c.wrote || after["a.txt"].data != "ONE\n" {
					t.Errorf("%s = %q, a.txt = %q after the commit; want %q and ONE", c.target, got, after["a.txt"].data, c.wrote)
				}
				renamed := slices.ContainsFunc(ffs.Events(), func(e faultfs.Event) bool {
					return e.Op == faultfs.OpRename && e.Err == nil && strings.Contains(e.Name, filepath.Base(c.target)+".applypatch-")
				})
				if !renamed {
					t.Errorf("the file was not renamed into place: %v", ffs.Events())
				}
			})
		}
	}
}

// TestCrashMatrixRecoversCreatedPath stops a commit holding an Add and a Move into an
// existing directory after its k-th operation, for every k, on the OS filesystem and
// through a root, then runs recovery: where a file is placed by a rename that refuses a
// name, no k leaves it under two names; where it is linked into place, some k fall after
// the link and before its temporary name is removed (both names on one file); and every
// k ends with the tree at its baseline or at the commit's result, nothing of the
// commit's left (X11).
func TestCrashMatrixRecoversCreatedPath(t *testing.T) {
	payload := "*** Begin Patch\n" + updateFirst + "*** Add File: d/new.txt\n+ours\n" +
		"*** Update File: src.txt\n*** Move to: d/moved.txt\n@@\n-moved\n+MOVED\n*** End Patch\n"
	for _, b := range linkCrashBackends {
		t.Run(b.name, func(t *testing.T) {
			osfs := afero.NewOsFs()
			dir := t.TempDir()
			writeFixture(t, osfs, dir, noReplaceFiles)
			before := readTree(t, osfs, dir)
			fsys, opts, ffs := b.opts(t, dir, nil)
			if _, err := applypatch.Apply(context.Background(), fsys, payload, opts); err != nil {
				t.Fatalf("clean run: %v", err)
			}
			total, final := ffs.Count(), readTree(t, osfs, dir)
			linked := linkedInto(ffs, "d/new.txt", "d/moved.txt")
			if strings.HasSuffix(b.name, "-links") != linked {
				t.Fatalf("the created files were linked into place: %v; want that only without the rename that refuses a name", linked)
			}
			between := 0
			for k := 0; k <= total; k++ {
				dir := t.TempDir()
				writeFixture(t, osfs, dir, noReplaceFiles)
				fsys, opts, _ := b.opts(t, dir, haltAfter(k))
				_, err := applypatch.Apply(context.Background(), fsys, payload, opts)
				between += linkedTwice(t, dir, "d/new.txt", "d/moved.txt")
				cleanFs, cleanOpts, _ := b.opts(t, dir, nil)
				r, rerr := applypatch.Recover(context.Background(), cleanFs, cleanOpts)
				if rerr != nil {
					t.Fatalf("k=%d: recovery: %v", k, rerr)
				}
				after := readTree(t, osfs, dir)
				switch {
				case cmp.Equal(before, after, cmp.AllowUnexported(treeEntry{})):
				case cmp.Equal(final, after, cmp.AllowUnexported(treeEntry{})):
					if err != nil {
						t.Errorf("k=%d: the commit failed (%v) but its result stayed", k, err)
					}
				default:
					t.Fatalf("k=%d: after recovery (%+v) the tree is neither baseline nor final:\nbaseline diff %v\nfinal diff %v",
						k, r, treeDiff(before, after), treeDiff(final, after))
				}
			}
			if linked && between < 2 {
				t.Errorf("%d interruptions fell between a link and the removal of its temporary name, want one for each of the two created paths", between)
			}
			if !linked && between > 0 {
				t.Errorf("%d interruptions left a created path under two names, where one rename places it", between)
			}
			t.Logf("k = 0..%d: %d stopped with a created path and its temporary name on one file", total, between)
		})
	}
}

// linkedInto reports whether a commit linked a file into place at one of the targets
// (the journal's links of baselines aside).
func linkedInto(ffs *faultfs.Fs, targets ...string) bool {
	return slices.ContainsFunc(ffs.Events(), func(e faultfs.Event) bool {
		return e.Op == faultfs.OpLink && slices.ContainsFunc(targets, func(t string) bool { return strings.HasSuffix(filepath.ToSlash(e.Name), "/"+t) })
	})
}

// linkedTwice counts the targets that are, with a temporary file beside them, two names
// of one file.
func linkedTwice(t *testing.T, dir string, targets ...string) int {
	t.Helper()
	n := 0
	for _, target := range targets {
		fi, err := os.Stat(filepath.Join(dir, target))
		if err != nil {
			continue
		}
		temps, err := filepath.Glob(filepath.Join(dir, filepath.Dir(target), fmt.Sprintf(".%s.applypatch-*", filepath.Base(target))))
		if err != nil {
			t.Fatal(err)
		}
		for _, tmp := range temps {
			if ti, err := os.Stat(tmp); err == nil && os.SameFile(fi, ti) {
				n++
			}
		}
	}
	return n
}

// TestLinkPlantedWithoutHardLinks is TestLinkPlantedAtCreatedPath where the filesystem
// has no hard links (the OS filesystem behind afero's BasePathFs), so the file is renamed
// into place: the look just before the rename finds the link, and the link is kept
// rather than replaced (F1, X3).
func TestLinkPlantedWithoutHardLinks(t *testing.T) {
	for _, c := range createdMeanwhile {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			fsys := afero.NewBasePathFs(afero.NewOsFs(), dir)
			writeFixture(t, fsys, "/ws", noReplaceFiles)
			before := readTree(t, fsys, "/ws")
			link := filepath.Join(dir, "ws", c.target)
			ffs := faultfs.New(fsys, writeBefore(c.target, func() {
				if err := os.Symlink("nowhere", link); err != nil {
					t.Error(err)
				}
			}))
			_, err := applypatch.Apply(context.Background(), ffs, c.payload, &applypatch.Options{Workspace: "/ws"})
			checkTaken(t, err, c.target)
			if got, err := os.Readlink(link); err != nil || got != "nowhere" {
				t.Errorf("the planted link is %q, %v; want it kept", got, err)
			}
			os.Remove(link)
			if diff := treeDiff(before, readTree(t, fsys, "/ws")); len(diff) > 0 {
				t.Errorf("besides %s, these differ from the baseline: %v", c.target, diff)
			}
		})
	}
}

// TestCreatedMeanwhileWithoutHardLinks has another program create the path of an Add,
// or of a Move's destination, just before the commit writes it, where the filesystem has
// no hard links: the look just before the rename finds it, the other program's file is
// kept, and the commit fails with the conflict a stale baseline gives (X2, X3).
func TestCreatedMeanwhileWithoutHardLinks(t *testing.T) {
	layers := map[string]func(t *testing.T) afero.Fs{
		"MemMapFs":   func(*testing.T) afero.Fs { return afero.NewMemMapFs() },
		"BasePathFs": func(t *testing.T) afero.Fs { return afero.NewBasePathFs(afero.NewOsFs(), t.TempDir()) },
	}
	for name, layer := range layers {
		for _, c := range createdMeanwhile {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				fsys := layer(t)
				writeFixture(t, fsys, "/ws", noReplaceFiles)
				before := readTree(t, fsys, "/ws")
				const theirs = "the other program's file\n"
				ffs := faultfs.New(fsys, writeBefore(c.target, func() {
					if err := afero.WriteFile(fsys, "/ws/"+c.target, []byte(theirs), 0o644); err != nil {
						t.Error(err)
					}
				}))
				_, err := applypatch.Apply(context.Background(), ffs, c.payload, &applypatch.Options{Workspace: "/ws"})
				checkTaken(t, err, c.target)
				after := readTree(t, fsys, "/ws")
				if got := after[c.target].data; got != theirs {
					t.Errorf("%s = %q, want the other program's file", c.target, got)
				}
				delete(after, c.target)
				if diff := treeDiff(before, after); len(diff) > 0 {
					t.Errorf("besides %s, these differ from the baseline: %v", c.target, diff)
				}
			})
		}
	}
}
