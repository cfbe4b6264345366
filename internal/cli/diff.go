package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/afero"
)

// unifiedDiff resolves the payload again and renders what it would write as a unified
// diff, file by file in payload order, under the paths as authored ("a/" and "b/", or
// /dev/null for an Add's old and a Delete's new side); a pure rename is one "rename" line.
func unifiedDiff(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options) (string, error) {
	pr, err := applypatch.ResolvePayload(ctx, fsys, payload, opts)
	if err != nil {
		return "", err
	}
	p, err := applypatch.Parse(payload) // the operations, in the order of the proposal's files
	if err != nil {
		return "", err
	}
	s := applypatch.NewSession(pr)
	var b strings.Builder
	for i, op := range p.Ops {
		oldName, newName := "a/"+op.Path, "b/"+op.Path
		switch {
		case op.Kind == applypatch.OpAdd:
			oldName = "/dev/null"
		case op.Kind == applypatch.OpDelete:
			newName = "/dev/null"
		case op.MoveTo != "":
			newName = "b/" + op.MoveTo
		}
		r, err := s.Revise(applypatch.Target{File: i + 1})
		if err != nil { // a pure rename, or an empty file added or deleted: no lines change
			fmt.Fprintf(&b, "diff %s %s\n", oldName, newName)
			if op.MoveTo != "" {
				fmt.Fprintf(&b, "rename from %s\nrename to %s\n", op.Path, op.MoveTo)
			}
			continue
		}
		b.Write(diff.Diff(oldName, []byte(r.Baseline), newName, []byte(r.Proposed)))
		r.Cancel()
	}
	return b.String(), nil
}
