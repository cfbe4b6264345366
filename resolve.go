package applypatch

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"slices"

	"github.com/spf13/afero"
	"golang.org/x/text/encoding/unicode"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// snapshotOf returns a baseline as a snapshot.
func snapshotOf(b filestate.Baseline) Snapshot {
	return Snapshot{Exists: b.Exists, Mode: b.Mode, Hash: b.Sum()}
}

// Resolve prepares a patch for review and commit without writing anything: it fences
// and classifies every path, asks the Authorizer where needed, captures every baseline,
// places every hunk and derives every result. When operations fail, the error joins one
// error per failing operation (errors.As finds each; its Unwrap() []error lists them), so
// a model can fix them all in one retry.
func Resolve(ctx context.Context, fsys afero.Fs, p *Patch, opts *Options) (*Proposal, error) {
	return resolve(ctx, fsys, p, opts, false)
}

// resolve is Resolve; parsed is set for a patch parse just returned, which holds what a
// payload can hold by construction, so it skips checkPatch.
func resolve(ctx context.Context, fsys afero.Fs, p *Patch, opts *Options, parsed bool) (*Proposal, error) {
	return resolveWith(ctx, fsys, p, opts, parsed, nil, nil)
}

// resolveWith is resolve for a patch built in the library, whose operations carry what an
// undo or a redo restores, or the edit each one makes.
func resolveWith(ctx context.Context, fsys afero.Fs, p *Patch, opts *Options, parsed bool, restores []*restoreSpec, edits []*Edit) (*Proposal, error) {
	switch {
	case fsys == nil:
		return nil, errNoFs
	case p == nil:
		return nil, errNoPatch
	}
	if opts == nil {
		opts = &Options{}
	}
	pr := &Proposal{patch: p, fsys: fsys, opts: *opts, read: filestate.Stamps{}, restores: restores, edits: edits}
	pr.opts.Limits = opts.Limits.withDefaults()
	if n := len(p.Ops); n > pr.opts.Limits.Operations {
		return nil, overLimit("the patch has %s operations", n, pr.opts.Limits.Operations, false)
	}
	if !parsed {
		if err := checkPatch(p); err != nil {
			return nil, err
		}
	}
	if err := pr.fence(ctx); err != nil {
		return nil, err
	}
	defer splitfs.Batch(pr.files())() // baselines are read relative to kept directories
	if _, err := pr.expectations(); err != nil {
		return nil, err
	}
	var errs []error
	ahead := pr.readAhead()
	defer ahead.stop()
	for i, c := range pr.changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base, err := ahead.capture(pr, i)
		errs = append(errs, pr.prepare(c, base, err)...)
	}
	if len(errs) == 0 {
		errs = pr.checkOrder()
	}
	if len(errs) > 0 {
		return nil, &patchError{errs: errs}
	}
	return pr, nil
}

// belowFile reports the error of a path below a file: absent for now, and creatable
// once an earlier operation removes that file.
func belowFile(err error) bool {
	return errors.Is(err, &FileError{Reason: FileParentNotDir})
}

// prepare takes a change's baseline as captured (base, or the error of its capture),
// captures a Move destination's, and decodes and places its hunks.
func (pr *Proposal) prepare(c *change, base filestate.Baseline, err error) []error {
	if c.Base = base; err != nil {
		if c.Op.Kind != OpAdd || !belowFile(err) {
			return []error{err}
		}
		c.parentErr = err
	}
	if c.Op.MoveTo != "" {
		if c.Dest, err = pr.capture(c.moveName, c.Op.MoveTo); err != nil {
			if !belowFile(err) {
				return []error{err}
			}
			c.destParentErr = err
		}
	}
	if err := checkPresence(c); err != nil {
		return []error{pr.noWorkspace(err)}
	}
	switch {
	case c.Op.Kind == OpAdd:
		if n := addSize(c.Op.Lines); n > pr.opts.Limits.AddBytes && c.undoSpec == nil {
			return []error{tooLarge(c.Op.Path, fileAddTooLarge, int64(n), int64(pr.opts.Limits.AddBytes))}
		}
		if pr.addCodec(c) {
			if _, err := c.derive(); err != nil {
				return []error{err}
			}
		}
	case c.Op.Kind == OpUpdate:
		return pr.place(c)
	}
	return nil
}

// addCodec gives an Add the encoding the host declares for its path and reports
// whether there is one; without, the content is written as UTF-8.
func (pr *Proposal) addCodec(c *change) bool {
	enc, name := pr.declared(c.name)
	if enc == nil || enc == unicode.UTF8 {
		return false
	}
	c.codec = &lines.Codec{Enc: enc, Name: name}
	return true
}

// capture reads the baseline of one path (see [filestate.Capture]).
func (pr *Proposal) capture(name, authored string) (filestate.Baseline, error) {
	b, err := filestate.Capture(pr.files(), name, authored, pr.opts.Limits.FileBytes, pr.read)
	return b, stateError(err)
}

// stateError words what filestate found as the public error: a path that cannot be read
// (or lies below a file), or a file over the host's limit.
func stateError(err error) error {
	if err == nil {
		return nil
	}
	var unreadable *filestate.ReadError
	var large *filestate.TooLarge
	switch {
	case errors.As(err, &unreadable):
		fe := &FileError{Path: unreadable.Path, Reason: FileUnreadable, Err: unreadable.Err}
		if unreadable.Parent != "" {
			fe.Reason, fe.Parent = FileParentNotDir, unreadable.Parent
		}
		return fe
	case errors.As(err, &large):
		return tooLarge(large.Path, 0, large.Size, large.Limit)
	}
	return err
}

// noWorkspace words a FileMissing for the host when the workspace directory itself does
// not exist: the options name the wrong one, which no payload can fix.
func (pr *Proposal) noWorkspace(err error) error {
	fe, ok := err.(*FileError)
	if !ok || fe.Reason != FileMissing {
		return err
	}
	if fi, serr := pr.files().Stat(pr.opts.workspace()); serr == nil && fi.IsDir() || !errors.Is(serr, fs.ErrNotExist) && serr != nil {
		return err
	}
	fe.why, fe.workspace = fileNoWorkspace, pr.opts.workspace()
	return fe
}

// checkPresence applies X3 at resolve time: Add and a Move destination need an absent
// path; Update and Delete an existing file.
func checkPresence(c *change) error {
	switch {
	case c.Op.Kind == OpAdd && c.Base.Exists:
		return exists(c.Op.Path, c.Base.Dir)
	case c.Op.Kind == OpDelete && !c.Base.Exists:
		return &FileError{Path: c.Op.Path, Reason: FileMissing, why: fileDeleteMissing}
	case c.Op.Kind != OpAdd && !c.Base.Exists:
		return &FileError{Path: c.Op.Path, Reason: FileMissing}
	case c.Op.Kind != OpAdd && c.Base.Dir:
		return &FileError{Path: c.Op.Path, Reason: FileIsDir}
	case c.Op.MoveTo != "" && c.Dest.Exists && !c.Dest.Dir:
		return &FileError{Path: c.Op.MoveTo, Reason: FileExists, why: fileMoveOntoFile}
	case c.Op.MoveTo != "" && c.Dest.Exists:
		return exists(c.Op.MoveTo, c.Dest.Dir)
	}
	return nil
}

// exists is the FileExists of a path an Add or a Move would create, worded for a
// directory where it is one.
func exists(path string, dir bool) *FileError {
	if dir {
		return &FileError{Path: path, Reason: FileExists, why: fileExistsDir}
	}
	return &FileError{Path: path, Reason: FileExists}
}

// decodeBase decodes a change's baseline as text: a binary file, or one not valid
// in its encoding, is a *FileError.
func (pr *Proposal) decodeBase(c *change) (*lines.Text, *lines.Codec, error) {
	s, cd, err := pr.decodeString(c)
	if err != nil {
		return nil, nil, err
	}
	return lines.Split(s), cd, nil
}

// captureEntry reads a change's baseline: for a Delete whose path is a symbolic link,
// the link itself (its target text, with fs.ModeSymlink in the mode), since that is what
// is removed; otherwise what the path holds, links followed.
func (pr *Proposal) captureEntry(c *change) (filestate.Baseline, error) {
	return pr.captureInto(c, pr.read)
}

// captureInto is captureEntry keeping what the file said of itself in stamps.
func (pr *Proposal) captureInto(c *change, stamps filestate.Stamps) (filestate.Baseline, error) {
	if c.Op.Kind == OpDelete {
		if st := filestate.ReadLink(pr.files(), c.name); st.Err == nil && st.Exists {
			return filestate.Baseline{Exists: true, Mode: st.Mode, Bytes: st.Data}, nil
		}
	}
	b, err := filestate.Capture(pr.files(), c.name, c.Op.Path, pr.opts.Limits.FileBytes, stamps)
	return b, stateError(err)
}

// expectations resolves the snapshots the host expects (Options.Expected) to the names
// the commit reads and writes. A key may spell a path of the payload any way: its
// resolved name, the path as authored, or another path, relative to the workspace or
// absolute, that leads to the same file through "." and ".." and symbolic links. A key
// that names no path of the payload is a [*ConflictError] of reason [ConflictNotInPatch], so a misspelt key is
// never skipped in silence. Several keys may name one path; its every snapshot is
// checked.
func (pr *Proposal) expectations() (map[string][]Snapshot, error) {
	if len(pr.opts.Expected) == 0 {
		return nil, nil
	}
	f, err := pr.fencer()
	if err != nil {
		return nil, err
	}
	byPath, names := map[string]string{}, map[string]bool{}
	for _, c := range pr.changes {
		byPath[c.Op.Path], names[c.name] = c.name, true
		if c.Op.MoveTo != "" {
			byPath[c.Op.MoveTo], names[c.moveName] = c.moveName, true
		}
	}
	out := map[string][]Snapshot{}
	unknown := &ConflictError{Reason: ConflictNotInPatch}
	for _, key := range slices.Sorted(maps.Keys(pr.opts.Expected)) {
		name, ok := byPath[key]
		if !ok {
			res, err := f.Resolver().Resolve(f.Real(), key)
			name, ok = res.Name, err == nil && names[res.Name]
		}
		if !ok {
			unknown.Paths = append(unknown.Paths, key)
			unknown.shown = append(unknown.shown, f.Show(key))
			continue
		}
		out[name] = append(out[name], pr.opts.Expected[key])
	}
	if len(unknown.Paths) > 0 {
		return nil, unknown
	}
	return out, nil
}

// expects converts the host's snapshots, by resolved name, to what the check reads: once
// per call.
func expects(m map[string][]Snapshot) map[string][]filestate.Expect {
	if m == nil {
		return nil
	}
	out := make(map[string][]filestate.Expect, len(m))
	for name, snaps := range m {
		for _, s := range snaps {
			out[name] = append(out[name], filestate.Expect(s))
		}
	}
	return out
}

// Snapshots returns the state Resolve captured at each path the proposal changes, keyed
// by the path as authored: the Options.Expected of a later call that must find the files
// exactly as this one saw them (a host that asks a person, then applies what they saw).
func (pr *Proposal) Snapshots() map[string]Snapshot {
	if pr == nil {
		return nil
	}
	out := make(map[string]Snapshot, len(pr.changes))
	for _, c := range pr.changes {
		out[c.Op.Path] = snapshotOf(c.Base)
	}
	return out
}
