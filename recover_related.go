package applypatch

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/txn"
)

// recoverRelated recovers the interrupted commits of the workspaces that hold this one or
// that it holds, each under its own lock and before this run takes its own: a commit
// killed in p wrote p/sub's files too, and a run in p/sub must not build on half of it.
// It says, for the result, what each recovery did, naming each workspace relative to this
// one. A recovery that cannot finish refuses this run, with nothing written. It runs
// only for a host whose filesystem is the operating system's: another (a memory
// filesystem whose names happen to exist on the disk) never has it act on the disk.
func recoverRelated(ctx context.Context, fsys afero.Fs, opts *Options) ([]string, error) {
	if _, ok := fsys.(*afero.OsFs); !ok {
		return nil, nil
	}
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, nil // Resolve reports it
	}
	root := f.Real()
	var notes []string
	for _, ws := range txn.Related(root) {
		rel, err := filepath.Rel(root, ws)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		how := "holds this one"
		if filepath.IsLocal(rel) {
			how = "is nested in this one"
		}
		ro := &Options{Workspace: ws, LockTimeout: opts.LockTimeout, LockWait: opts.LockWait, Sync: opts.Sync}
		r, err := recoverOne(ctx, afero.NewOsFs(), ro)
		if err != nil {
			return notes, &relatedError{dir: rel, how: how, err: err}
		}
		if s := r.String(); s != "" {
			notes = append(notes, fmt.Sprintf("in the workspace %s, which %s: %s", rel, how, s))
		}
	}
	return notes, nil
}

// A relatedError is a run refused because an interrupted commit of a workspace that
// holds this one, or that it holds, could not be recovered.
type relatedError struct {
	dir, how string // the workspace relative to this one, and how the two nest
	err      error
}

func (e *relatedError) Error() string {
	return fmt.Sprintf("an interrupted commit in the workspace %s, which %s, could not be recovered (%v); nothing was "+
		"written here: recover it first (applypatch --recover -C %s), then try again", e.dir, e.how, e.err, e.dir)
}

func (e *relatedError) Unwrap() error { return e.err }
