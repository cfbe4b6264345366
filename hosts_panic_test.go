package applypatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// panicked runs fn and returns what it panicked with, or nil.
func panicked(fn func()) (r any) {
	defer func() { r = recover() }()
	fn()
	return nil
}

// nextApplyWorks checks that the workspace's lock is free: an Apply there commits
// without waiting.
func nextApplyWorks(t *testing.T, fsys afero.Fs, root string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	name := fmt.Sprintf("later-%d.txt", time.Now().UnixNano())
	payload := "*** Begin Patch\n*** Add File: " + name + "\n+later\n*** End Patch\n"
	if _, err := applypatch.Apply(ctx, fsys, payload, &applypatch.Options{Workspace: root}); err != nil {
		t.Fatalf("the next Apply in the workspace: %v", err)
	}
}

// TestOwnerPanicMidCommitRollsBack: an OwnerPredicate that panics after the first file
// is written panics on through Commit, but only once the written file is put back and
// the lock released: a panic in a host's callback is a failure like any other, never a
// half-written tree (X8, C1).
func TestOwnerPanicMidCommitRollsBack(t *testing.T) {
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, abcFiles)
		before := readTree(t, fsys, root)
		armed := false
		owner := applypatch.OwnerFunc(func(name string) bool {
			if armed && filepath.Base(name) == "b.txt" {
				panic("owner exploded")
			}
			return true
		})
		hooked := hookFs{fsys, afterWriteOf("a.txt", func() { armed = true })}
		pr := mustResolve(t, hooked, abcPayload, &applypatch.Options{Workspace: root, Owner: owner})
		r := panicked(func() { applypatch.Commit(context.Background(), pr) })
		if r != "owner exploded" {
			t.Fatalf("Commit panicked with %v, want the owner's panic", r)
		}
		if diff := treeDiff(before, readTree(t, fsys, root)); len(diff) > 0 {
			t.Errorf("not rolled back: %v", diff)
		}
		nextApplyWorks(t, fsys, root)
	})
}

// TestAuthorizerPanicReleasesLock: an Authorizer that panics inside Apply and a Tool's
// call, which ask it under the workspace's lock, leaves the lock free for the next
// commit once the host recovers the panic (X8).
func TestAuthorizerPanicReleasesLock(t *testing.T) {
	auth := authorizerFunc(func(context.Context, applypatch.Mode, []applypatch.ClassifiedPath) error { panic("boom") })
	payload := "*** Begin Patch\n*** Update File: ../out/b.txt\n@@\n-two\n+TWO\n*** End Patch\n"
	onEachFs(t, func(t *testing.T, fsys afero.Fs, dir string) {
		root := filepath.Join(dir, "ws")
		fsys.MkdirAll(root, 0o755)
		fsys.MkdirAll(filepath.Join(dir, "out"), 0o755)
		writeString(t, fsys, filepath.Join(root, "a.txt"), "one\n")
		writeString(t, fsys, filepath.Join(dir, "out", "b.txt"), "two\n")
		opts := &applypatch.Options{Workspace: root, Mode: applypatch.ModeEdits, Authorizer: auth}
		if r := panicked(func() { applypatch.Apply(context.Background(), fsys, payload, opts) }); r != "boom" {
			t.Fatalf("Apply panicked with %v, want the Authorizer's panic", r)
		}
		nextApplyWorks(t, fsys, root)
		tool := &applypatch.Tool{FS: fsys, Options: *opts}
		args, _ := json.Marshal(map[string]string{"input": payload})
		if r := panicked(func() { tool.Call(context.Background(), args) }); r != "boom" {
			t.Fatalf("Tool.Call panicked with %v, want the Authorizer's panic", r)
		}
		nextApplyWorks(t, fsys, root)
	})
}

// TestAfterCommitPanicSettlesApplied: a review whose AfterCommit hook panics settles
// with the commit's result, told that the hook panicked, never as a failure: the change
// is written, and a model told otherwise would act on a tree it misreads (R-section,
// X8).
func TestAfterCommitPanicSettlesApplied(t *testing.T) {
	fsys := afero.NewMemMapFs()
	writeString(t, fsys, "/ws/a.txt", "one\n")
	opts := &applypatch.Options{Workspace: "/ws",
		AfterCommit: func(context.Context, *applypatch.Result) { panic("hook exploded") }}
	pr := mustResolve(t, fsys, "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n", opts)
	res, err := applypatch.Review(context.Background(), pr, applypatch.ReviewerFunc(
		func(ctx context.Context, s *applypatch.Session) error {
			_, err := s.Submit(ctx)
			return err
		}))
	if err != nil || res.Status != applypatch.StatusApplied {
		t.Fatalf("Review = %v, %v; want applied", res, err)
	}
	if text := res.Text(); !strings.Contains(text, "AfterCommit hook panicked (hook exploded)") {
		t.Errorf("the result does not tell the hook's panic:\n%s", text)
	}
	if b, _ := afero.ReadFile(fsys, "/ws/a.txt"); string(b) != "ONE\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// authorizerFunc is an Authorizer from a function.
type authorizerFunc func(context.Context, applypatch.Mode, []applypatch.ClassifiedPath) error

func (f authorizerFunc) Authorize(ctx context.Context, m applypatch.Mode, p []applypatch.ClassifiedPath) error {
	return f(ctx, m, p)
}
