package applypatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// A host that commits, reviews or previews the nil proposal of a call that failed gets
// an error that says so, not a panic.
func TestNilProposalIsAnError(t *testing.T) {
	ctx := context.Background()
	if _, err := Commit(ctx, nil); err == nil || !strings.Contains(err.Error(), "nil *Proposal") {
		t.Errorf("Commit(nil) = %v", err)
	}
	if _, err := Review(ctx, nil, ReviewerFunc(func(context.Context, *Session) error { return nil })); err == nil {
		t.Error("Review(nil) succeeded")
	}
	var pr *Proposal
	if res := pr.Preview(); res == nil || res.Status != StatusError {
		t.Errorf("Preview of nil = %+v", res)
	}
}

// U5: an undo or a redo asked of options with no history is an ErrNothingToUndo (or
// ErrNothingToRedo) whose text names the missing History, for the host to fix.
func TestUndoWithoutHistorySaysWhy(t *testing.T) {
	ctx := context.Background()
	for _, undo := range []bool{true, false} {
		revert, want := Undo, ErrNothingToUndo
		if !undo {
			revert, want = Redo, ErrNothingToRedo
		}
		_, err := revert(ctx, afero.NewMemMapFs(), &Options{Workspace: "/ws"})
		if !errors.Is(err, want) || !strings.Contains(err.Error(), "Options.History") {
			t.Errorf("undo %v: %v", undo, err)
		}
	}
}

// A workspace that does not exist is named to the host when a payload's file is missing
// from it: no patch can fix the options. One that exists keeps the model's message, and
// an Add into a workspace not made yet still applies.
func TestMissingWorkspaceNamedToHost(t *testing.T) {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/other.txt", []byte("x\n"), 0o644)
	update := patch("*** Update File: hello.txt", "@@", "-a", "+b")
	_, err := ResolvePayload(ctx, fsys, update, &Options{Workspace: "/wsx"})
	if !errors.Is(err, &FileError{Reason: FileMissing}) || !strings.Contains(err.Error(), "Options.Workspace") {
		t.Errorf("missing workspace: %v", err)
	}
	_, err = ResolvePayload(ctx, fsys, update, &Options{Workspace: "/ws"})
	if !errors.Is(err, &FileError{Reason: FileMissing}) || strings.Contains(err.Error(), "Options.Workspace") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Apply(ctx, fsys, patch("*** Add File: new.txt", "+n"), &Options{Workspace: "/fresh"}); err != nil {
		t.Errorf("an Add into a workspace not made yet: %v", err)
	}
}
