//go:build linux

package applypatch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// osTree is every regular file under dir with its mode and content.
func osTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, _ := d.Info()
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = fi.Mode().String() + " " + string(data)
		}
		return nil
	})
	return out
}

// U1, U2, PERF5: with the history on the workspace's filesystem, a commit's entry keeps
// the baselines by taking over the commit's journal directory (one rename, where the
// backups are hard links to the very files replaced) instead of writing their bytes
// again: no journal stays in the workspace, the entry file holds none of the baselines,
// and undo and redo still restore exact bytes and modes, through afero.OsFs and through
// an os.Root (fs/rootfs) alike.
func TestHistoryKeepsJournalBackups(t *testing.T) {
	for _, confined := range []bool{false, true} {
		ws, state := t.TempDir(), filepath.Join(t.TempDir(), "history")
		for name, content := range map[string]string{"a.txt": "one\ntwo\nBASELINE-A\n", "d.txt": "BASELINE-D\n", "m.txt": "m\nBASELINE-M\n"} {
			os.WriteFile(filepath.Join(ws, name), []byte(content), 0o640)
		}
		opts := &Options{Workspace: ws, History: NewHistory(afero.NewOsFs(), state)}
		if confined {
			confine(t, opts)
		}
		before := osTree(t, ws)
		if _, err := Apply(context.Background(), afero.NewOsFs(), patch(undoMatrix...), opts); err != nil {
			t.Fatal(err)
		}
		after := osTree(t, ws)
		names, _ := os.ReadDir(ws)
		for _, n := range names {
			if strings.HasPrefix(n.Name(), ".applypatch") {
				t.Errorf("confined %v: the workspace keeps %s after the commit", confined, n.Name())
			}
		}
		entries, _ := os.ReadDir(filepath.Join(state, "entries"))
		var kept, entry string
		for _, n := range entries {
			switch {
			case strings.HasSuffix(n.Name(), ".kept"):
				kept = n.Name()
			case strings.HasSuffix(n.Name(), ".entry"):
				entry = n.Name()
			}
		}
		if kept == "" || entry == "" {
			t.Fatalf("confined %v: the history holds %v, want an entry and its kept directory", confined, entries)
		}
		raw, _ := os.ReadFile(filepath.Join(state, "entries", entry))
		if strings.Contains(string(raw), "BASELINE") {
			t.Errorf("confined %v: the entry file holds a baseline's bytes it keeps beside it", confined)
		}
		for _, step := range []struct {
			build func(context.Context, afero.Fs, *Options) (*Proposal, error)
			want  map[string]string
		}{{Undo, before}, {Redo, after}} {
			pr, err := step.build(context.Background(), afero.NewOsFs(), opts)
			if err == nil {
				_, err = Commit(context.Background(), pr)
			}
			if err != nil {
				t.Fatalf("confined %v: %v", confined, err)
			}
			if got := osTree(t, ws); !cmp.Equal(got, step.want) {
				t.Errorf("confined %v: %s", confined, cmp.Diff(step.want, got))
			}
		}
	}
}

// U3: a kept baseline changed since (through another hard link of the file it was, say)
// is not restored: the undo is refused and writes nothing.
func TestKeptBaselineChangedRefusesUndo(t *testing.T) {
	ws, state := t.TempDir(), filepath.Join(t.TempDir(), "history")
	os.WriteFile(filepath.Join(ws, "d.txt"), []byte("keep me\n"), 0o644)
	opts := &Options{Workspace: ws, History: NewHistory(afero.NewOsFs(), state)}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Delete File: d.txt"), opts); err != nil {
		t.Fatal(err)
	}
	backups, _ := filepath.Glob(filepath.Join(state, "entries", "*.kept", "b*"))
	if len(backups) != 1 {
		t.Fatalf("kept backups: %v", backups)
	}
	os.WriteFile(backups[0], []byte("KEEP ME\n"), 0o644)
	before := osTree(t, ws)
	if pr, err := Undo(context.Background(), afero.NewOsFs(), opts); err == nil {
		_, err = Commit(context.Background(), pr)
		t.Errorf("an undo restored a baseline that changed since it was kept (%v)", err)
	}
	if got := osTree(t, ws); !cmp.Equal(got, before) {
		t.Errorf("a refused undo wrote: %s", cmp.Diff(before, got))
	}
}

// U3: a baseline with another hard link elsewhere is kept as bytes, not by its backup's
// link: an edit through that other name after the commit changes the file the backup
// is, and the undo still puts back what the commit found.
func TestKeptBaselineWithOtherLinkKeptAsBytes(t *testing.T) {
	ws, state, other := t.TempDir(), filepath.Join(t.TempDir(), "history"), filepath.Join(t.TempDir(), "other-name")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
	if err := os.Link(filepath.Join(ws, "a.txt"), other); err != nil {
		t.Skip("no hard links here:", err)
	}
	opts := &Options{Workspace: ws, History: NewHistory(afero.NewOsFs(), state)}
	if _, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+two"), opts); err != nil {
		t.Fatal(err)
	}
	if kept, _ := filepath.Glob(filepath.Join(state, "entries", "*.kept")); len(kept) != 0 {
		t.Errorf("a baseline another name can change is kept by link: %v", kept)
	}
	os.WriteFile(other, []byte("changed through the other name\n"), 0o644)
	pr, err := Undo(context.Background(), afero.NewOsFs(), opts)
	if err == nil {
		_, err = Commit(context.Background(), pr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("undo: %v; a.txt = %q, want the baseline", err, b)
	}
}

// U1, U2: a commit the history cannot keep (here it also deletes a symbolic link) still
// applies, says so, and leaves no kept directory behind: the journal directory moved in
// for it is discarded with the entry that was not written. Only its note stays, so an
// undo says that the newest change is missing rather than undo an older one.
func TestKeptDiscardedWhenNotRecorded(t *testing.T) {
	ws, state := t.TempDir(), filepath.Join(t.TempDir(), "history")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
	if err := os.Symlink("a.txt", filepath.Join(ws, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	opts := &Options{Workspace: ws, History: NewHistory(afero.NewOsFs(), state)}
	res, err := Apply(context.Background(), afero.NewOsFs(), patch("*** Update File: a.txt\n@@\n-one\n+two", "*** Delete File: link"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text(), "History not recorded") {
		t.Errorf("result %q does not say the history could not keep the change", res.Text())
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "entries")); len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".intent") {
		t.Errorf("the history holds %v after a commit it could not keep, want its note alone", entries)
	}
	if _, err := Undo(context.Background(), afero.NewOsFs(), opts); !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "missing from the history") {
		t.Errorf("Undo after a change the history missed: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "entries")); len(entries) != 0 {
		t.Errorf("the history holds %v after the undo forgot the missed change", entries)
	}
	if names, _ := os.ReadDir(ws); len(names) != 1 || names[0].Name() != "a.txt" {
		t.Errorf("the workspace holds %v, want a.txt alone", names)
	}
}
