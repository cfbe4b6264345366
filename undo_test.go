package applypatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// undoBench is a workspace in memory with a history.
type undoBench struct {
	t    *testing.T
	fsys afero.Fs
	opts *Options
}

func newUndoBench(t *testing.T, files map[string]string) *undoBench {
	t.Helper()
	b := &undoBench{t: t, fsys: afero.NewMemMapFs()}
	b.opts = &Options{Workspace: workspace, History: NewHistory(b.fsys, "/state/history")}
	for name, content := range files {
		b.write(name, content)
	}
	return b
}

func (b *undoBench) write(name, content string) {
	b.t.Helper()
	if err := afero.WriteFile(b.fsys, path.Join(workspace, name), []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// tree is every workspace file and its content.
func (b *undoBench) tree() map[string]string {
	out := map[string]string{}
	afero.Walk(b.fsys, workspace, func(p string, fi fs.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := afero.ReadFile(b.fsys, p)
			out[strings.TrimPrefix(p, workspace+"/")] = string(data)
		}
		return nil
	})
	return out
}

func (b *undoBench) apply(sections ...string) {
	b.t.Helper()
	if _, err := Apply(context.Background(), b.fsys, patch(sections...), b.opts); err != nil {
		b.t.Fatalf("Apply: %v", err)
	}
}

// mustRevert undoes (undo) or redoes the newest change, and fails the test if it cannot.
func (b *undoBench) mustRevert(undo bool) {
	b.t.Helper()
	if _, err := b.revert(undo); err != nil {
		b.t.Fatalf("%s: %v", map[bool]string{true: "Undo", false: "Redo"}[undo], err)
	}
}

func (b *undoBench) revert(undo bool) (*Result, error) {
	b.t.Helper()
	op := Undo
	if !undo {
		op = Redo
	}
	pr, err := op(context.Background(), b.fsys, b.opts)
	if err != nil {
		return nil, err
	}
	return Commit(context.Background(), pr)
}

// U2, U3, U4: an undo restores the exact bytes (CRLF and a missing final newline kept),
// a redo the exact bytes the change wrote, and both say what they did.
func TestUndoRedoExact(t *testing.T) {
	before := "one\r\ntwo\r\nthree\nfour"
	b := newUndoBench(t, map[string]string{"a.txt": before, "gone.txt": "bye\n"})
	b.apply("*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three", "*** Delete File: gone.txt", "*** Add File: new/b.txt\n+hello")
	after := b.tree()
	res, err := b.revert(true)
	if err != nil {
		t.Fatalf("Undo: %v", err)
	}
	if got := b.tree(); !cmp.Equal(got, map[string]string{"a.txt": before, "gone.txt": "bye\n"}) {
		t.Errorf("after undo: %q", got)
	}
	if !strings.Contains(res.Text(), "Undid the change") {
		t.Errorf("the result does not say what was undone:\n%s", res.Text())
	}
	if _, err := b.revert(true); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("a second undo: %v, want ErrNothingToUndo", err)
	}
	b.mustRevert(false)
	if got := b.tree(); !cmp.Equal(got, after) {
		t.Errorf("after redo: %s", cmp.Diff(after, got))
	}
	if _, err := b.revert(false); !errors.Is(err, ErrNothingToRedo) {
		t.Errorf("a second redo: %v, want ErrNothingToRedo", err)
	}
}

// U3: a later edit elsewhere in the file survives the undo.
func TestUndoKeepsLaterEdits(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"})
	b.apply("*** Update File: a.txt\n@@\n b\n-c\n+C\n d")
	b.write("a.txt", "a\nb\nC\nd\ne\nf\ng\nh\ni\nJ (mine)\n")
	b.mustRevert(true)
	if got := b.tree()["a.txt"]; got != "a\nb\nc\nd\ne\nf\ng\nh\ni\nJ (mine)\n" {
		t.Errorf("after undo: %q", got)
	}
}

// U3: an edit of the change's own lines refuses the undo, naming the file and hunk;
// nothing is written, in any file of the change.
func TestUndoRefusesEditedLines(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\nb\nc\nd\n", "z.txt": "1\n2\n"})
	b.apply("*** Update File: a.txt\n@@\n b\n-c\n+C\n d", "*** Update File: z.txt\n@@\n 1\n-2\n+two")
	b.write("a.txt", "a\nb\nC, edited by hand\nd\n")
	before := b.tree()
	_, err := b.revert(true)
	var me *MatchError
	if !errors.As(err, &me) || me.Path != "a.txt" || !strings.Contains(err.Error(), "cannot undo") {
		t.Fatalf("Undo: %v, want a MatchError for a.txt", err)
	}
	if got := b.tree(); !cmp.Equal(got, before) {
		t.Errorf("a refused undo wrote: %s", cmp.Diff(before, got))
	}
}

// U3: a file deleted, recreated or an added file edited since refuses the undo.
func TestUndoRefusesChangedPaths(t *testing.T) {
	for name, tc := range map[string]struct {
		patch  string
		since  func(b *undoBench)
		reason string
	}{
		"deleted":     {"*** Update File: a.txt\n@@\n-x\n+y", func(b *undoBench) { b.fsys.Remove(workspace + "/a.txt") }, "deleted since"},
		"recreated":   {"*** Delete File: a.txt", func(b *undoBench) { b.write("a.txt", "new\n") }, "created since"},
		"added, edit": {"*** Add File: n.txt\n+n", func(b *undoBench) { b.write("n.txt", "n\nmore\n") }, "edited since"},
	} {
		t.Run(name, func(t *testing.T) {
			b := newUndoBench(t, map[string]string{"a.txt": "x\n"})
			b.apply(tc.patch)
			tc.since(b)
			before := b.tree()
			_, err := b.revert(true)
			if !errors.Is(err, &ConflictError{Reason: ConflictChanged}) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("Undo: %v, want a conflict saying %q", err, tc.reason)
			}
			if got := b.tree(); !cmp.Equal(got, before) {
				t.Errorf("a refused undo wrote: %s", cmp.Diff(before, got))
			}
		})
	}
}

// U2: a Move with an edit moves back with the old bytes; a deleted file comes back with
// its mode.
func TestUndoMoveAndMode(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "one\ntwo\n"})
	b.fsys.Chmod(workspace+"/a.txt", 0o755)
	b.apply("*** Update File: a.txt\n*** Move to: b/c.txt\n@@\n-one\n+ONE\n two")
	b.mustRevert(true)
	if got := b.tree(); !cmp.Equal(got, map[string]string{"a.txt": "one\ntwo\n"}) {
		t.Errorf("after undoing the move: %q", got)
	}
	b.apply("*** Delete File: a.txt")
	b.mustRevert(true)
	if fi, err := b.fsys.Stat(workspace + "/a.txt"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the undone Delete left %v, %v; want mode 0755", fi, err)
	}
}

// U4: a new commit after an undo drops what could be redone; several undos step back.
func TestUndoSteps(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "v0\n"})
	b.apply("*** Update File: a.txt\n@@\n-v0\n+v1")
	b.apply("*** Update File: a.txt\n@@\n-v1\n+v2")
	for _, want := range []string{"v1\n", "v0\n"} {
		b.mustRevert(true)
		if got := b.tree()["a.txt"]; got != want {
			t.Fatalf("after undo: %q, want %q", got, want)
		}
	}
	b.apply("*** Update File: a.txt\n@@\n-v0\n+w1")
	if _, err := b.revert(false); !errors.Is(err, ErrNothingToRedo) {
		t.Errorf("redo after a new commit: %v", err)
	}
	list, err := b.opts.History.Entries()
	if err != nil || len(list) != 1 || list[0].Undone || list[0].Paths[0] != "a.txt" {
		t.Errorf("Entries = %+v, %v; want only the new commit", list, err)
	}
}

// U2, U4, U5: a review that keeps part of an undo back reverts the rest, and its result
// names the part left; a redo then applies again only what was undone, leaving the part
// already as the change left it; an undo of a change whose files were all put back by
// hand has nothing left to do, and says so.
func TestPartialUndoThenRedo(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\n", "z.txt": "z\n"})
	b.apply("*** Update File: a.txt\n@@\n-a\n+A", "*** Update File: z.txt\n@@\n-z\n+Z")
	pr, err := Undo(context.Background(), b.fsys, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Review(context.Background(), pr, keepBack("z.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(res.Notes, "\n"); !strings.Contains(got, "in part: the review left z.txt as it was; redo applies it again.") {
		t.Errorf("the partial undo's notes do not say what it left: %q", got)
	}
	if got := b.tree(); !cmp.Equal(got, map[string]string{"a.txt": "a\n", "z.txt": "Z\n"}) {
		t.Fatalf("after the partial undo: %q", got)
	}
	b.mustRevert(false)
	if got := b.tree(); !cmp.Equal(got, map[string]string{"a.txt": "A\n", "z.txt": "Z\n"}) {
		t.Fatalf("after the redo: %q", got)
	}
	b.write("a.txt", "a\n")
	b.write("z.txt", "z\n")
	_, err = b.revert(true)
	if !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "already holds") {
		t.Errorf("an undo of a change put back by hand: %v", err)
	}
	if _, err := b.revert(false); err != nil {
		t.Errorf("the change put back by hand is not marked undone: redo says %v", err)
	}
}

// U3, U4: a redo after an undo whose review kept one file back leaves that file alone:
// it already holds what the redo would leave, and an insertion placed again by the
// ordinary rules would be applied twice.
func TestRedoAfterPartialUndoAppliesNothingTwice(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	b.apply("*** Update File: a.txt\n@@\n a\n+a2", "*** Update File: b.txt\n@@\n b\n+b2")
	pr, err := Undo(context.Background(), b.fsys, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Review(context.Background(), pr, keepBack("b.txt")); err != nil {
		t.Fatal(err)
	}
	b.mustRevert(false)
	if got, want := b.tree(), map[string]string{"a.txt": "a\na2\n", "b.txt": "b\nb2\n"}; !cmp.Equal(got, want) {
		t.Errorf("after the redo: %q, want %q", got, want)
	}
}

// U3: an undo of a change that moved and edited b.txt, whose content was put back by
// hand at the new path since, moves it back without placing the inverse hunks again
// (which would duplicate a line), and reverts the change's other file as well.
func TestUndoMoveWhoseContentWasPutBack(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a1\na2\n", "b.txt": "b0\nb1\n"})
	b.apply("*** Update File: a.txt\n@@\n-a1\n+A1\n a2", "*** Update File: b.txt\n*** Move to: c.txt\n@@\n-b0\n b1")
	b.write("c.txt", "b0\nb1\n")
	b.mustRevert(true)
	if got, want := b.tree(), map[string]string{"a.txt": "a1\na2\n", "b.txt": "b0\nb1\n"}; !cmp.Equal(got, want) {
		t.Errorf("after the undo: %q, want %q", got, want)
	}
}

// keepBack is a Reviewer that leaves the change to path out and submits the rest.
func keepBack(path string) Reviewer {
	return ReviewerFunc(func(ctx context.Context, s *Session) error {
		target, err := s.Find(path, 0)
		if err != nil {
			return err
		}
		if err := s.Select(target, false, nil); err != nil {
			return err
		}
		_, err = s.Submit(ctx)
		return err
	})
}

// U2: an undo of an Add removes the directories the change made only when they are
// empty: a file made since in one of them keeps it, on a filesystem (afero's memory one)
// whose Remove would take a directory and everything in it.
func TestUndoKeepsMadeDirectoryHoldingAFile(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\n"})
	b.apply("*** Add File: d/sub/new.txt\n+n")
	b.write("d/mine.txt", "mine\n")
	b.mustRevert(true)
	if got, want := b.tree(), map[string]string{"a.txt": "a\n", "d/mine.txt": "mine\n"}; !cmp.Equal(got, want) {
		t.Errorf("after the undo: %s", cmp.Diff(want, got))
	}
	if ok, _ := afero.DirExists(b.fsys, workspace+"/d/sub"); ok {
		t.Error("the empty directory the change made is kept")
	}
}

// TestUndoRefusesAnotherWorkspace: a History given to the options of two workspaces
// reverts a change only in the workspace it was made in: the undo asked for in the other
// one is refused with nothing written there, and the change stays undoable where it was
// made (U1, U3).
func TestUndoRefusesAnotherWorkspace(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/a/config.txt", []byte("debug=false\n"), 0o644)
	afero.WriteFile(fsys, "/b/config.txt", []byte("debug=true\n"), 0o644) // what a's change will write
	h := NewHistory(fsys, "/state/history")
	optsA, optsB := &Options{Workspace: "/a", History: h}, &Options{Workspace: "/b", History: h}
	payload := patch("*** Update File: config.txt\n@@\n-debug=false\n+debug=true")
	if _, err := Apply(context.Background(), fsys, payload, optsA); err != nil {
		t.Fatal(err)
	}
	if _, err := Undo(context.Background(), fsys, optsB); !errors.Is(err, errOtherWorkspace) {
		t.Fatalf("an undo asked for in /b: %v, want it refused", err)
	}
	if b, _ := afero.ReadFile(fsys, "/b/config.txt"); string(b) != "debug=true\n" {
		t.Errorf("/b/config.txt = %q: the undo wrote in another workspace", b)
	}
	pr, err := Undo(context.Background(), fsys, optsA)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Commit(context.Background(), pr); err != nil {
		t.Fatal(err)
	}
	if b, _ := afero.ReadFile(fsys, "/a/config.txt"); string(b) != "debug=false\n" {
		t.Errorf("/a/config.txt = %q after its undo", b)
	}
	if _, err := Redo(context.Background(), fsys, optsB); !errors.Is(err, errOtherWorkspace) {
		t.Fatalf("a redo asked for in /b: %v, want it refused", err)
	}
}

// TestSharedHistoryRecordsEveryCommit: the commits of several workspaces given one
// History, on the operating system's filesystem (where each hands its baselines' backups
// to the history), are each recorded, however they interleave: none takes another's
// sequence number or sweeps another's backups as left by a crash (U1).
func TestSharedHistoryRecordsEveryCommit(t *testing.T) {
	dir := t.TempDir()
	fsys := afero.NewOsFs()
	h := NewHistory(fsys, filepath.Join(dir, "state"))
	const workspaces, commits = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, workspaces*commits)
	for w := range workspaces {
		root := filepath.Join(dir, fmt.Sprintf("ws%d", w))
		os.MkdirAll(root, 0o755)
		os.WriteFile(filepath.Join(root, "f.txt"), []byte("0\n"), 0o644)
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := &Options{Workspace: root, History: h}
			for i := range commits {
				res, err := Apply(context.Background(), fsys, patch(fmt.Sprintf("*** Update File: f.txt\n@@\n-%d\n+%d", i, i+1)), opts)
				if err == nil && strings.Contains(res.Text(), "History not recorded") {
					err = errors.New(res.Text())
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, err := h.Entries()
	if err != nil || len(entries) != workspaces*commits {
		t.Fatalf("the history holds %d entries (%v), want %d", len(entries), err, workspaces*commits)
	}
}

// TestUndoCommitAfterHistoryMovedIsConflict: the commit of an undo proposed before
// another change was applied is refused as a ConflictChanged conflict (the world is not
// as proposed), saying what changed, with nothing written (U2, U4).
func TestUndoCommitAfterHistoryMovedIsConflict(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\nb\nc\n", "z.txt": "z\n"})
	if _, err := Apply(context.Background(), b.fsys, patch("*** Update File: a.txt\n@@\n-b\n+B"), b.opts); err != nil {
		t.Fatal(err)
	}
	pr, err := Undo(context.Background(), b.fsys, b.opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(context.Background(), b.fsys, patch("*** Update File: z.txt\n@@\n-z\n+Z"), b.opts); err != nil {
		t.Fatal(err)
	}
	before := b.tree()
	_, err = Commit(context.Background(), pr)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Reason != ConflictChanged || !errors.Is(err, errHistoryMoved) || !strings.Contains(err.Error(), "ask for the undo or redo again") {
		t.Fatalf("Commit = %v, want a ConflictChanged conflict saying the history moved", err)
	}
	if diff := cmp.Diff(before, b.tree()); diff != "" {
		t.Errorf("wrote (-before +after):\n%s", diff)
	}
}

// TestCancelledBeforeApplyBlamesNoOne: an Apply or a Recover whose context is cancelled
// before it begins returns the context's error, not a lock conflict with another commit
// that does not exist (C-section).
func TestCancelledBeforeApplyBlamesNoOne(t *testing.T) {
	b := newUndoBench(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Apply(ctx, b.fsys, patch("*** Update File: a.txt\n@@\n-a\n+A"), b.opts)
	if !errors.Is(err, context.Canceled) || errors.As(err, new(*ConflictError)) {
		t.Errorf("Apply = %v, want the context's error alone", err)
	}
	if _, err := Recover(ctx, b.fsys, b.opts); !errors.Is(err, context.Canceled) || errors.As(err, new(*ConflictError)) {
		t.Errorf("Recover = %v, want the context's error alone", err)
	}
	if got := b.tree()["a.txt"]; got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// TestHistoryInsideWorkspaceGuarded: a History a host keeps inside the workspace is out
// of any payload's reach, as the user's state directory is: a Delete of one of its files
// is refused as forbidden, nothing is written, and the change stays undoable (U1, F2).
func TestHistoryInsideWorkspaceGuarded(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("a\n"), 0o644)
	opts := &Options{Workspace: "/ws", History: NewHistory(fsys, "/ws/.history")}
	if _, err := Apply(context.Background(), fsys, patch("*** Update File: a.txt\n@@\n-a\n+A"), opts); err != nil {
		t.Fatal(err)
	}
	entries, _ := afero.Glob(fsys, "/ws/.history/entries/*.entry")
	if len(entries) != 1 {
		t.Fatalf("entries = %v", entries)
	}
	name := strings.TrimPrefix(entries[0], "/ws/")
	_, err := Apply(context.Background(), fsys, patch("*** Delete File: "+name), opts)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Class != ClassForbidden {
		t.Fatalf("a Delete of %s: %v, want it forbidden", name, err)
	}
	if ok, _ := afero.Exists(fsys, entries[0]); !ok {
		t.Fatal("the history's entry was deleted")
	}
	if _, err := Undo(context.Background(), fsys, opts); err != nil {
		t.Errorf("the change is no longer undoable: %v", err)
	}
}
