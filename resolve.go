package applypatch

import (
	"context"
	"errors"

	"github.com/spf13/afero"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// snapshotOf returns a baseline as a snapshot.
func snapshotOf(b filestate.Baseline) Snapshot {
	return Snapshot{Exists: b.Exists, Mode: b.Mode, Hash: b.Sum()}
}

// Name returns the resolved name of the change's path in the filesystem. It may disclose
// host paths, so results and errors show Op.Path instead.
func (c *change) fsName() string { return c.name }

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
	if opts == nil {
		opts = &Options{}
	}
	pr := &Proposal{patch: p, fsys: fsys, opts: *opts, read: filestate.Stamps{}}
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
	for _, c := range pr.changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		errs = append(errs, pr.prepare(c)...)
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

// prepare captures a change's baselines, decodes and places its hunks.
func (pr *Proposal) prepare(c *change) []error {
	var err error
	if c.Base, err = pr.captureEntry(c); err != nil {
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
		return []error{err}
	}
	switch {
	case c.Op.Kind == OpAdd:
		if n := addSize(c.Op.Lines); n > pr.opts.Limits.AddBytes {
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

// checkPresence applies X3 at resolve time: Add and a Move destination need an absent
// path; Update and Delete an existing file.
func checkPresence(c *change) error {
	switch {
	case c.Op.Kind == OpAdd && c.Base.Exists:
		return &FileError{Path: c.Op.Path, Reason: FileExists}
	case c.Op.Kind != OpAdd && !c.Base.Exists:
		return &FileError{Path: c.Op.Path, Reason: FileMissing}
	case c.Op.Kind != OpAdd && c.Base.Dir:
		return &FileError{Path: c.Op.Path, Reason: FileIsDir}
	case c.Op.MoveTo != "" && c.Dest.Exists:
		return &FileError{Path: c.Op.MoveTo, Reason: FileExists}
	}
	return nil
}

// addSize is the byte size of an Add's content.
func addSize(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

func (pr *Proposal) declared(name string) (encoding.Encoding, string) {
	if pr.opts.Encoding == nil {
		return nil, ""
	}
	return pr.opts.Encoding(name)
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

// decodeString is decodeBase before the text is split into lines.
func (pr *Proposal) decodeString(c *change) (string, *lines.Codec, error) {
	enc, name := pr.declared(c.name)
	s, cd, err := lines.Decode(c.Base.Bytes, enc, name)
	switch {
	case errors.Is(err, lines.ErrBinary):
		return "", nil, &FileError{Path: c.Op.Path, Reason: FileBinary}
	case err != nil:
		return "", nil, undecodable(c.Op.Path, err)
	}
	if len(s) > lines.MaxText {
		return "", nil, tooLarge(c.Op.Path, 0, int64(len(s)), lines.MaxText)
	}
	return s, cd, nil
}
