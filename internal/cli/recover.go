package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// recoverWorkspace undoes a commit an earlier run left interrupted (killed, or the
// machine stopped) before this run reads anything, and says on stderr what it did.
func recoverWorkspace(ctx context.Context, root string, ws afero.Fs, stderr io.Writer) (*applypatch.Recovery, error) {
	r, err := applypatch.Recover(ctx, hostFs(), &applypatch.Options{Workspace: root, WorkspaceFs: ws})
	if msg := r.String(); msg != "" {
		fmt.Fprintln(stderr, "applypatch:", msg)
	}
	if err != nil {
		fmt.Fprintln(stderr, "applypatch:", err)
	}
	return r, err
}

// recoverOnly is --recover: recovery and nothing else. It exits 0 whether or not there
// was anything to recover, 1 when recovery could not finish or left a path it could
// not restore.
func recoverOnly(ctx context.Context, root string, ws afero.Fs, stderr io.Writer) int {
	if r, err := recoverWorkspace(ctx, root, ws, stderr); err != nil || len(r.Left) > 0 {
		return exitRejected
	}
	return exitApplied
}
