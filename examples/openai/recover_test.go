package main

import (
	"context"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestRecoverAtStart: X11. A commit killed while it wrote its journal is recovered
// before the model sees a file: the journal is removed and the log says so.
func TestRecoverAtStart(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	afero.WriteFile(fsys, "/ws/.applypatch-journal/b0", []byte("one\n"), 0o644)
	afero.WriteFile(fsys, "/ws/.applypatch-journal/journal.json", []byte(`{"version":1,"steps":[{"name":`), 0o644)
	tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeEdits}}
	var log strings.Builder
	if err := recoverWorkspace(context.Background(), tool, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "openai: recovered an interrupted commit") {
		t.Errorf("log = %q", log.String())
	}
	if ok, _ := afero.Exists(fsys, "/ws/.applypatch-journal"); ok {
		t.Error("the journal is still there")
	}
	log.Reset()
	if err := recoverWorkspace(context.Background(), tool, &log); err != nil || log.Len() != 0 {
		t.Errorf("second recovery: %v, log %q; want nothing to do", err, log.String())
	}
}
