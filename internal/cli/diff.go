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
	s := applypatch.NewSession(pr)
	var b strings.Builder
	for i, c := range pr.Changes {
		oldName, newName := "a/"+c.Op.Path, "b/"+c.Op.Path
		switch {
		case c.Op.Kind == applypatch.Add:
			oldName = "/dev/null"
		case c.Op.Kind == applypatch.Delete:
			newName = "/dev/null"
		case c.Op.MoveTo != "":
			newName = "b/" + c.Op.MoveTo
		}
		r, err := s.Revise(applypatch.Target{File: i + 1})
		if err != nil { // a pure rename, or an empty file added or deleted: no lines change
			fmt.Fprintf(&b, "diff %s %s\n", oldName, newName)
			if c.Op.MoveTo != "" {
				fmt.Fprintf(&b, "rename from %s\nrename to %s\n", c.Op.Path, c.Op.MoveTo)
			}
			continue
		}
		b.Write(diff.Diff(oldName, []byte(r.Baseline()), newName, []byte(r.Proposed())))
		r.Cancel()
	}
	return b.String(), nil
}
