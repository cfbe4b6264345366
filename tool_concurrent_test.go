package applypatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// TestToolConcurrentCalls: X17. A long-running host (an MCP server) gets many
// compatible calls on one file at once. With no person to review them (edits mode) each
// call reads its baseline under the commit's lock, so every one lands on what the
// others wrote, and none reports a conflict or a review it never had.
func TestToolConcurrentCalls(t *testing.T) {
	const calls = 24
	onEachFs(t, func(t *testing.T, fsys afero.Fs, root string) {
		writeFixture(t, fsys, root, map[string]fixtureFile{"counter.txt": {"HEAD\nTAIL\n", 0o644}})
		tool := &applypatch.Tool{FS: fsys, Options: applypatch.Options{Workspace: root, Mode: applypatch.ModeEdits}}
		var wg sync.WaitGroup
		errs := make([]error, calls)
		for i := range calls {
			wg.Go(func() {
				payload := fmt.Sprintf("*** Begin Patch\n*** Update File: counter.txt\n@@\n HEAD\n+line %d\n*** End Patch\n", i)
				args, _ := json.Marshal(map[string]string{"input": payload})
				_, _, errs[i] = tool.Call(context.Background(), args)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}
		got := readTree(t, fsys, root)["counter.txt"].data
		for i := range calls {
			if !strings.Contains(got, fmt.Sprintf("line %d\n", i)) {
				t.Errorf("line %d is missing from counter.txt:\n%s", i, got)
			}
		}
		if n := strings.Count(got, "\n"); n != calls+2 {
			t.Errorf("counter.txt has %d lines, want %d", n, calls+2)
		}
	})
}
