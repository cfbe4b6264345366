package main

import (
	"context"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// crashMidCommit applies a patch to a.txt on fsys and stops the file system dead once
// the commit has written its journal, as a kill would: nothing after that point, the
// rollback included, reaches the files.
func crashMidCommit(t *testing.T, fsys afero.Fs, opts applypatch.Options) {
	t.Helper()
	journaled := false
	ffs := faultfs.New(fsys, faultfs.FailEvery(func(op faultfs.Op, name string) bool {
		if journaled {
			return true
		}
		if strings.HasSuffix(name, "journal.json") {
			journaled = true
		}
		return false
	}))
	payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n"
	if _, err := applypatch.Apply(context.Background(), ffs, payload, &opts); err == nil {
		t.Fatal("the commit went through; want it cut off")
	}
	if !journaled {
		t.Fatal("the commit never wrote its journal")
	}
}

// TestRecoverAtStart: X11. A commit killed once it had written its journal is recovered
// before the model sees a file: the journal is removed, the file is as it was, and the
// log says so.
func TestRecoverAtStart(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeEdits}}
	crashMidCommit(t, fsys, tool.Options)

	var log strings.Builder
	if err := recoverWorkspace(context.Background(), tool, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "openai: recovered an interrupted commit") {
		t.Errorf("log = %q", log.String())
	}
	if b, _ := afero.ReadFile(fsys, "/ws/a.txt"); string(b) != "one\n" {
		t.Errorf("a.txt = %q after recovery, want it as before the commit", b)
	}
	if names, _ := afero.Glob(fsys, "/ws/.applypatch-journal*"); len(names) != 0 {
		t.Errorf("journal left behind: %v", names)
	}
	log.Reset()
	if err := recoverWorkspace(context.Background(), tool, &log); err != nil || log.Len() != 0 {
		t.Errorf("second recovery: %v, log %q; want nothing to do", err, log.String())
	}
}

// TestRecoverLeavesPlanted: X13. A journal the workspace holds but this user's
// applypatch did not seal (a clone or a tarball planted it) is left as it is, reported,
// and nothing it names is touched.
func TestRecoverLeavesPlanted(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	afero.WriteFile(fsys, "/etc/passwd", []byte("root\n"), 0o644)
	afero.WriteFile(fsys, "/ws/.applypatch-journal/journal.json",
		[]byte(`{"version":1,"steps":[{"op":"create","path":"/etc/passwd"}]}`), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeEdits}}
	var log strings.Builder
	recoverWorkspace(context.Background(), tool, &log)
	if !strings.Contains(log.String(), "not a journal of this user's applypatch") {
		t.Errorf("log = %q; want the planted journal reported", log.String())
	}
	if b, _ := afero.ReadFile(fsys, "/etc/passwd"); string(b) != "root\n" {
		t.Errorf("/etc/passwd = %q; a planted journal reached outside the workspace", b)
	}
	if ok, _ := afero.Exists(fsys, "/ws/.applypatch-journal/journal.json"); !ok {
		t.Error("the planted journal was removed; want it left for its owner to judge")
	}
}
