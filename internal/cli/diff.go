package cli

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/afero"
)

// unifiedDiff resolves the payload again and renders what it would write as a git-style
// unified diff, file by file in payload order, under the paths as authored: each file
// opens with a "diff --git" line, an Add and a Delete say their file's mode, and a Move
// says "rename from"/"rename to", so that git apply and GNU patch both take it.
func unifiedDiff(ctx context.Context, fsys afero.Fs, payload string, opts *applypatch.Options) (string, error) {
	pr, err := applypatch.ResolvePayload(ctx, fsys, payload, opts)
	if err != nil {
		return "", err
	}
	p, err := applypatch.Parse(payload) // the operations, in the order of the proposal's files
	if err != nil {
		return "", err
	}
	var ops []fileOp
	deleted := map[string]int{}
	for _, op := range p.Ops {
		if i, ok := deleted[op.Path]; ok && op.Kind == applypatch.OpAdd {
			ops[i].kind = applypatch.OpUpdate // a Delete then an Add of one path: one rewrite, one file of the proposal
			continue
		}
		if op.Kind == applypatch.OpDelete {
			deleted[op.Path] = len(ops)
		}
		ops = append(ops, fileOp{op.Kind, op.Path, op.MoveTo, 0})
	}
	return renderDiff(pr, ops, fsys, opts), nil
}

// proposalDiff is unifiedDiff of a proposal built in the library, such as an undo: its
// operations are read from its preview, which lists every one in order.
func proposalDiff(pr *applypatch.Proposal, fsys afero.Fs, opts *applypatch.Options, preview *applypatch.Result) (string, error) {
	kinds := map[string]applypatch.OpKind{"add": applypatch.OpAdd, "delete": applypatch.OpDelete}
	var ops []fileOp
	for _, f := range preview.Files {
		kind, ok := kinds[f.Kind]
		if !ok {
			kind = applypatch.OpUpdate
		}
		ops = append(ops, fileOp{kind, f.Path, f.MovePath, f.Mode})
	}
	return renderDiff(pr, ops, fsys, opts), nil
}

// A fileOp is what the diff says of one file: its operation and paths as authored, and
// the mode an Add writes (zero: the options' mode).
type fileOp struct {
	kind         applypatch.OpKind
	path, moveTo string
	mode         fs.FileMode
}

// renderDiff writes the proposal's files, ops being its operations in order.
func renderDiff(pr *applypatch.Proposal, ops []fileOp, fsys afero.Fs, opts *applypatch.Options) string {
	s := applypatch.NewSession(pr)
	var b strings.Builder
	for i, op := range ops {
		dst := op.path
		if op.moveTo != "" {
			dst = op.moveTo
		}
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", op.path, dst)
		oldName, newName := "a/"+op.path, "b/"+dst
		switch {
		case op.kind == applypatch.OpAdd:
			oldName = "/dev/null"
			fmt.Fprintf(&b, "new file mode %s\n", gitMode(cmp.Or(op.mode, opts.FileMode), 0o644))
		case op.kind == applypatch.OpDelete:
			newName = "/dev/null"
			fmt.Fprintf(&b, "deleted file mode %s\n", gitMode(baseMode(fsys, opts, op.path), 0o644))
		case op.moveTo != "":
			fmt.Fprintf(&b, "rename from %s\nrename to %s\n", op.path, op.moveTo)
		}
		r, err := s.Revise(applypatch.Target{File: i + 1})
		if err != nil { // a pure rename, or an empty file added or deleted: no lines change
			continue
		}
		d := diff.Diff(oldName, []byte(r.Baseline), newName, []byte(r.Proposed))
		if _, rest, ok := strings.Cut(string(d), "\n"); ok && strings.HasPrefix(string(d), "diff ") {
			d = []byte(rest) // the "diff --git" line above replaces the plain one
		}
		b.Write(d)
		r.Cancel()
	}
	return b.String()
}

// baseMode is the mode of a path of the payload as it is now, 0 when it cannot be read.
func baseMode(fsys afero.Fs, opts *applypatch.Options, path string) fs.FileMode {
	if !filepath.IsAbs(path) {
		path = filepath.Join(opts.Workspace, path)
	}
	fi, err := fsys.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Mode()
}

// gitMode is a regular file's mode as git writes it: 100755 when anyone may execute it,
// else 100644; def stands in for an unknown (zero) mode.
func gitMode(m, def fs.FileMode) string {
	if m == 0 {
		m = def
	}
	if m&0o111 != 0 {
		return "100755"
	}
	return "100644"
}
