package applypatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// historyBeside is a history store for root's workspace, in a directory beside it.
func historyBeside(fsys afero.Fs, root string) *applypatch.History {
	return applypatch.NewHistory(fsys, filepath.Join(filepath.Dir(root), filepath.Base(root)+"-history"))
}

// TestToolUndoWaitsForCommits: U4, X17. Undos and commits called at once on one tool
// with nobody to review them are serialised by the workspace's lock: each undo reads
// the history and the files under it, so it reverts the newest change there is then,
// never conflicts with a commit that landed while it was being built, and the file
// ends with the lines of exactly the commits no undo reverted.
func TestToolUndoWaitsForCommits(t *testing.T) {
	const calls, undos = 16, 6
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, map[string]fixtureFile{"counter.txt": {"HEAD\nTAIL\n", 0o644}})
		tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{
			Workspace: root, Mode: applypatch.ModeEdits, History: historyBeside(fsys, root)}}
		ctx := context.Background()
		var wg sync.WaitGroup
		var undone atomic.Int32
		for i := range calls {
			wg.Go(func() {
				payload := fmt.Sprintf("*** Begin Patch\n*** Update File: counter.txt\n@@\n HEAD\n+line %d\n*** End Patch\n", i)
				args, _ := json.Marshal(map[string]string{"input": payload})
				if _, _, err := tool.Call(ctx, args); err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			})
		}
		for range undos {
			wg.Go(func() {
				res, err := tool.Undo(ctx)
				switch {
				case err == nil:
					undone.Add(1)
				case errors.Is(err, applypatch.ErrNothingToUndo): // ran before any commit
				default:
					t.Errorf("undo: %v\n%s", err, res.Text())
				}
			})
		}
		wg.Wait()
		got := readTree(t, fsys, root)["counter.txt"].data
		if n, want := strings.Count(got, "line "), calls-int(undone.Load()); n != want {
			t.Errorf("counter.txt has %d added lines after %d commits and %d undos, want %d:\n%s", n, calls, undone.Load(), want, got)
		}
		if !strings.HasPrefix(got, "HEAD\n") || !strings.HasSuffix(got, "TAIL\n") {
			t.Errorf("counter.txt lost its own lines:\n%s", got)
		}
	})
}

// TestToolUndoModes: U2, U5. A tool's undo and redo are settled as its calls are: at
// once in edits mode, by the Reviewer in ask mode, refused without one; with nothing to
// do, the error says so and the result is an error result; files are untouched by
// every refusal.
func TestToolUndoModes(t *testing.T) {
	ctx := context.Background()
	setup := func(t *testing.T, mode applypatch.Mode, rv applypatch.Reviewer) (*applypatch.Tool, afero.Fs) {
		fsys := afero.NewMemMapFs()
		writeFixture(t, fsys, "/ws", map[string]fixtureFile{"a.txt": {"one\n", 0o644}})
		tool := &applypatch.Tool{FS: fsys, Reviewer: rv, Options: applypatch.Options{
			Workspace: "/ws", Mode: applypatch.ModeEdits, History: applypatch.NewHistory(fsys, "/state")}}
		args, _ := json.Marshal(map[string]string{"patchText": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"})
		if _, _, err := tool.Call(ctx, args); err != nil {
			t.Fatal(err)
		}
		tool.Options.Mode = mode
		return tool, fsys
	}
	holds := func(t *testing.T, fsys afero.Fs, want string) {
		t.Helper()
		if b, _ := afero.ReadFile(fsys, "/ws/a.txt"); string(b) != want {
			t.Errorf("a.txt = %q, want %q", b, want)
		}
	}

	t.Run("edits", func(t *testing.T) {
		tool, fsys := setup(t, applypatch.ModeEdits, nil)
		if res, err := tool.Undo(ctx); err != nil || !strings.Contains(res.Text(), "Undid the change") {
			t.Fatalf("Undo = %q, %v", res.Text(), err)
		}
		holds(t, fsys, "one\n")
		if res, err := tool.Undo(ctx); !errors.Is(err, applypatch.ErrNothingToUndo) || !strings.HasPrefix(res.Text(), "Error: ") {
			t.Errorf("second Undo = %q, %v; want ErrNothingToUndo as an error result", res.Text(), err)
		}
		if res, err := tool.Redo(ctx); err != nil || !strings.Contains(res.Text(), "Redid the change") {
			t.Fatalf("Redo = %q, %v", res.Text(), err)
		}
		holds(t, fsys, "two\n")
		if _, err := tool.Redo(ctx); !errors.Is(err, applypatch.ErrNothingToRedo) {
			t.Errorf("second Redo: %v, want ErrNothingToRedo", err)
		}
	})
	t.Run("ask-reviewed", func(t *testing.T) {
		asked := 0
		rv := applypatch.ReviewerFunc(func(ctx context.Context, s *applypatch.Session) error {
			asked++
			_, err := s.Submit(ctx)
			return err
		})
		tool, fsys := setup(t, applypatch.ModeAsk, rv)
		if _, err := tool.Undo(ctx); err != nil || asked != 1 {
			t.Fatalf("Undo: %v, reviewed %d times", err, asked)
		}
		holds(t, fsys, "one\n")
	})
	t.Run("ask-no-reviewer", func(t *testing.T) {
		tool, fsys := setup(t, applypatch.ModeAsk, nil)
		if _, err := tool.Undo(ctx); err == nil {
			t.Fatal("an undo that needs a review was committed without a Reviewer")
		}
		holds(t, fsys, "two\n")
	})
	t.Run("no-fs", func(t *testing.T) {
		tool := &applypatch.Tool{Options: applypatch.Options{Mode: applypatch.ModeEdits, History: applypatch.NewHistory(afero.NewMemMapFs(), "/state")}}
		if res, err := tool.Undo(ctx); err == nil || !strings.Contains(res.Text(), "Tool.FS") {
			t.Errorf("Undo without FS = %q, %v", res.Text(), err)
		}
	})
}
