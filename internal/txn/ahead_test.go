package txn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/filestate"
)

// aheadPlan makes root hold 12 files in a/ and returns a plan of 24 writes: the 12
// files replaced, then 12 files created in two directories that do not exist yet, so
// that temporary files are written ahead of the steps (PERF5) and some must wait for
// their directory.
func aheadPlan(t *testing.T, root string) []*Step {
	t.Helper()
	if err := os.Mkdir(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	var plan []*Step
	for i := range 12 {
		name := filepath.Join(root, "a", fmt.Sprintf("f%d.txt", i))
		old := []byte(fmt.Sprintf("old %d\n", i))
		if err := os.WriteFile(name, old, 0o644); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, &Step{Op: Write, Name: name, Path: fmt.Sprintf("a/f%d.txt", i), Mode: 0o644,
			Body: heldBytes(fmt.Sprintf("new %d\n", i)), Base: filestate.Baseline{Exists: true, Mode: 0o644, Bytes: old}})
	}
	for i := range 12 {
		rel := fmt.Sprintf("n%d/g%d.txt", i/6, i)
		plan = append(plan, &Step{Op: Write, Name: filepath.Join(root, filepath.FromSlash(rel)), Path: rel, Mode: 0o644,
			Body: heldBytes(fmt.Sprintf("added %d\n", i))})
	}
	return plan
}

// aheadConfig is the configuration of a commit of plan on the operating system's
// filesystem in root, which is safe for concurrent use, so temporary files are written
// ahead; guard vets each step.
func aheadConfig(root string, guard func(*Step) (fs.FileInfo, error)) Config {
	return Config{Fs: afero.NewOsFs(), Root: root, Workspace: root, Key: make([]byte, minJournalKey),
		Seen: filestate.Stamps{}, Guard: guard}
}

// treeOf is every file and directory under root, with file contents.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = string(b)
		return nil
	})
	return out
}

// twoProcs runs the test with at least two processors, where temporary files are
// written ahead.
func twoProcs(t *testing.T) {
	t.Cleanup(func(n int) func() { return func() { runtime.GOMAXPROCS(n) } }(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))))
}

// TestAheadCommit commits a plan whose temporary files are written ahead: every file
// holds its new bytes, the new directories exist, and no temporary file or journal is
// left (PERF5, X4).
func TestAheadCommit(t *testing.T) {
	twoProcs(t)
	root := t.TempDir()
	plan := aheadPlan(t, root)
	if err := Run(context.Background(), plan, aheadConfig(root, nil)); err != nil {
		t.Fatal(err)
	}
	got := treeOf(t, root)
	for _, st := range plan {
		if want := string(st.Body.(heldBytes)); got[st.Path] != want {
			t.Errorf("%s = %q, want %q", st.Path, got[st.Path], want)
		}
	}
	if len(got) != len(plan)+3 { // and a/, n0/, n1/
		t.Errorf("the tree holds %d names, want the %d files and 3 directories: %v", len(got), len(plan), slices.Sorted(maps.Keys(got)))
	}
}

// TestAheadRollback fails, and panics in, the check of a step while temporary files of
// later steps are already written ahead: the commit rolls back to the baseline, and
// neither those files nor the directories made for the steps are left (PERF5, X5).
func TestAheadRollback(t *testing.T) {
	twoProcs(t)
	for _, c := range []struct {
		fail, later int // the step whose check fails, and one whose file is written by then
		panics      bool
	}{
		{4, 10, false}, {4, 10, true}, // replaced files
		{14, 17, false}, {14, 17, true}, // files created in a directory step 12 made
	} {
		t.Run(fmt.Sprintf("fail=%d,panics=%v", c.fail, c.panics), func(t *testing.T) {
			root := t.TempDir()
			plan := aheadPlan(t, root)
			before := treeOf(t, root)
			failAt, later, panics := plan[c.fail], plan[c.later], c.panics
			// The file after that one is being written as the check fails, and is only
			// done once the rollback has begun: the rollback must wait for it.
			gated := &gatedBody{heldBytes: plan[c.later+1].Body.(heldBytes), gate: make(chan struct{})}
			plan[c.later+1].Body = gated
			guard := func(st *Step) (fs.FileInfo, error) {
				if st != failAt {
					return nil, nil
				}
				waitForTemp(t, later) // a later step's file is written ahead
				time.AfterFunc(50*time.Millisecond, func() { close(gated.gate) })
				if panics {
					panic("guard")
				}
				return nil, &Conflict{Reason: Changed, Paths: []string{st.Path}}
			}
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panicked: %v", r)
					}
				}()
				return Run(context.Background(), plan, aheadConfig(root, guard))
			}()
			if err == nil {
				t.Fatal("the commit succeeded")
			}
			if inc := new(*Incomplete); errors.As(err, inc) {
				t.Fatalf("the rollback was incomplete: %v", err)
			}
			time.Sleep(100 * time.Millisecond) // what a goroutine left running would write by now
			if got := treeOf(t, root); !maps.Equal(got, before) {
				t.Errorf("after the rollback (%v) the tree is\n%v\nwant\n%v", err, got, before)
			}
		})
	}
}

// gatedBody is bytes whose second write out, the temporary file's (the first is the
// journal's checksum), waits for gate.
type gatedBody struct {
	heldBytes
	calls atomic.Int32
	gate  chan struct{}
}

func (b *gatedBody) WriteOut(w io.Writer) error {
	if b.calls.Add(1) == 2 {
		<-b.gate
	}
	return b.heldBytes.WriteOut(w)
}

// waitForTemp waits until the temporary file of st exists, for up to 10 s.
func waitForTemp(t *testing.T, st *Step) {
	dir, base := filepath.Dir(st.Name), filepath.Base(st.Name)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "."+base+".applypatch-") {
				return
			}
		}
	}
	t.Errorf("no temporary file of %s was written ahead within 10 s", st.Path)
}

// TestAheadNotBeforeTheHostAnswers commits with a host that asks, before each step,
// whether it still owns the file, and disowns one midway: when it is asked, no temporary
// file of a later step has been written beside the files it has not answered for, and the
// commit rolls back to the baseline (PERF5, X8).
func TestAheadNotBeforeTheHostAnswers(t *testing.T) {
	twoProcs(t)
	root := t.TempDir()
	plan := aheadPlan(t, root)
	before := treeOf(t, root)
	disowned := plan[6].Name
	asked := map[string]int{}
	cfg := aheadConfig(root, nil)
	cfg.Owns = func(name string) bool {
		if asked[name]++; asked[name] == 1 {
			return true // the check of the whole batch, before the first write
		}
		if name != disowned {
			return true
		}
		time.Sleep(20 * time.Millisecond) // time for a goroutine writing ahead to show itself
		for _, st := range plan[7:12] {   // the later files in a/, which exists
			dir, base := filepath.Dir(st.Name), filepath.Base(st.Name)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "."+base+".applypatch-") {
					t.Errorf("the temporary file of %s was written before the host answered for %s", st.Path, plan[6].Path)
				}
			}
		}
		return false
	}
	var conflict *Conflict
	if err := Run(context.Background(), plan, cfg); !errors.As(err, &conflict) || conflict.Reason != NotOwned {
		t.Fatalf("Run = %v, want the disowned file refused", err)
	}
	if got := treeOf(t, root); !maps.Equal(got, before) {
		t.Errorf("after the rollback the tree is\n%v\nwant\n%v", got, before)
	}
}

// TestAheadOneLargeFile commits one file of aheadBytes: however few the steps, its
// temporary file is written ahead, while the step checks the file it replaces (the
// guard sees it appear). The commit lands it; a check that fails then leaves the tree
// as it was, with no temporary file (PERF5, X2, X5).
func TestAheadOneLargeFile(t *testing.T) {
	twoProcs(t)
	for _, fails := range []bool{false, true} {
		t.Run(fmt.Sprintf("fails=%v", fails), func(t *testing.T) {
			root := t.TempDir()
			name := filepath.Join(root, "big.txt")
			old := []byte("old\n")
			if err := os.WriteFile(name, old, 0o644); err != nil {
				t.Fatal(err)
			}
			body := heldBytes(strings.Repeat("new line\n", aheadBytes/9+1))
			st := &Step{Op: Write, Name: name, Path: "big.txt", Mode: 0o644, Body: body,
				Base: filestate.Baseline{Exists: true, Mode: 0o644, Bytes: old}}
			before := treeOf(t, root)
			guard := func(st *Step) (fs.FileInfo, error) {
				waitForTemp(t, st)
				if fails {
					return nil, &Conflict{Reason: Changed, Paths: []string{st.Path}}
				}
				return nil, nil
			}
			err := Run(context.Background(), []*Step{st}, aheadConfig(root, guard))
			want := map[string]string{"big.txt": string(body)}
			if fails {
				want = before
				if err == nil {
					t.Fatal("the commit succeeded")
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := treeOf(t, root); !maps.Equal(got, want) {
				t.Errorf("the tree holds %d files (%v), want %d", len(got), slices.Sorted(maps.Keys(got)), len(want))
			}
		})
	}
}
