package applypatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/prefault"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/spf13/afero"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// IsLink reports whether the baseline is a symbolic link itself, not the file it points
// to: the path of a Delete that is a link.
func (b baseline) isLink() bool { return b.Mode&fs.ModeSymlink != 0 }

// Sum returns the hex SHA-256 of the baseline's bytes: Hash when set, else computed.
func (b baseline) sum() string {
	if b.Hash != "" || !b.Exists || b.Dir {
		return b.Hash
	}
	return hashBytes(b.Bytes)
}

// Snapshot returns the baseline as a snapshot.
func (b baseline) snapshot() Snapshot {
	return Snapshot{Exists: b.Exists, Mode: b.Mode, Hash: b.sum()}
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
	pr := &Proposal{patch: p, fsys: fsys, opts: *opts, read: stamps{}}
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

// capture reads the baseline of one path: it opens the path once and learns its kind,
// mode and size from the open file, so the bytes and the mode are of one file.
func (pr *Proposal) capture(name, authored string) (baseline, error) {
	at := time.Now()
	f, err := pr.files().Open(name)
	if err != nil {
		return pr.captureUnopened(name, authored, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return baseline{}, readError(pr.files(), name, authored, err)
	}
	return pr.captureOpen(f, fi, authored, name, at)
}

// captureOpen reads the baseline of an open path, opened at at.
func (pr *Proposal) captureOpen(f afero.File, fi fs.FileInfo, authored, name string, at time.Time) (baseline, error) {
	if fi.IsDir() {
		return baseline{Exists: true, Dir: true, Mode: fi.Mode()}, nil
	}
	if fi.Size() > pr.opts.Limits.FileBytes {
		return baseline{}, tooLarge(authored, 0, fi.Size(), pr.opts.Limits.FileBytes)
	}
	_, stamped := changeTime(fi)
	b, err := readSized(f, fi.Size(), stamped && fi.Mode().IsRegular())
	if err != nil {
		return baseline{}, readError(pr.files(), name, authored, err)
	}
	if int64(len(b)) == fi.Size() {
		pr.read.keep(name, fi, at)
	}
	return baseline{Exists: true, Mode: modeOf(fi), Bytes: b}, nil
}

// captureUnopened is the baseline of a path that cannot be opened: absent, a directory
// that may not be read (which is still a directory), or unreadable.
func (pr *Proposal) captureUnopened(name, authored string, err error) (baseline, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return baseline{}, nil
	}
	if fi, serr := pr.files().Stat(name); serr == nil && fi.IsDir() {
		return baseline{Exists: true, Dir: true, Mode: fi.Mode()}, nil
	}
	return baseline{}, readError(pr.files(), name, authored, err)
}

// readSized reads r to its end into a buffer sized for size bytes and the end of file,
// so a file that keeps its size is read without growing or copying the buffer. With
// sized, a regular file whose metadata is stamped, it stops once size bytes are read,
// without the read that would only find the end: a file that grew since its size was
// measured has other metadata than the stamp, so the check before its write reads it
// again and finds it changed.
func readSized(r io.Reader, size int64, sized bool) ([]byte, error) {
	b := make([]byte, 0, size+1)
	prefault.Write(b[:cap(b)])
	for {
		if sized && size > 0 && int64(len(b)) == size {
			return b, nil
		}
		if len(b) == cap(b) { // the file grew since it was measured
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case errors.Is(err, io.EOF):
			return b, nil
		case err != nil:
			return nil, err
		}
	}
}

// readError is the error of a path that cannot be read. When a parent of it is a file
// (ENOTDIR), it names that parent as authored; otherwise it carries the sanitised cause.
func readError(fsys afero.Fs, name, authored string, err error) *FileError {
	fe := &FileError{Path: authored, Reason: FileUnreadable, Err: fserr.Sanitize(err, name, authored)}
	if errors.Is(err, syscall.ENOTDIR) {
		if parent, ok := fileParent(fsys, name, authored); ok {
			fe.Reason, fe.Parent = FileParentNotDir, parent
		}
	}
	return fe
}

// fileParent finds the parent of name that is a file and returns the authored path's
// parent at the same depth, so that only what the payload wrote is shown.
func fileParent(fsys afero.Fs, name, authored string) (string, bool) {
	up := path.Clean(filepath.ToSlash(authored))
	for dir := filepath.Dir(name); ; dir = filepath.Dir(dir) {
		if up = path.Dir(up); up == "." || up == "/" || up == ".." || strings.HasSuffix(up, "/..") {
			return "", false // the authored path has no parent left to name
		}
		if fi, err := fsys.Stat(dir); err == nil {
			return up, !fi.IsDir()
		}
	}
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

// place decodes an Update's baseline and places every hunk, reporting every failure.
func (pr *Proposal) place(c *change) []error {
	s, cd, err := pr.decodeString(c)
	if len(c.Op.Hunks) == 0 { // a pure rename keeps the bytes as they are, text or not
		if errors.Is(err, &FileError{Reason: FileBinary}) {
			return []error{err}
		}
		return nil
	}
	if err != nil {
		return []error{err}
	}
	t, idx := indexText(s, c.Op.Hunks)
	c.text, c.codec = t, cd
	pl := placerOf(idx)
	pl.blocks.markdown = isMarkdown(c.name)
	var errs []error
	num := 0
	for i := range c.Op.Hunks {
		h := &c.Op.Hunks[i]
		if !h.isLocator() {
			num++
		}
		place, merr := pl.place(h)
		hc := &hunkChange{Hunk: *h, Place: place, Selected: !h.isLocator()}
		c.Hunks = append(c.Hunks, hc)
		if merr != nil {
			merr.Path, merr.PayloadLine, merr.Hint = c.Op.Path, h.Line, h.Hint
			if merr.Anchor == "" {
				merr.Anchor = h.Anchor
			}
			if !h.isLocator() {
				merr.Hunk = num
			}
			if merr.kind() == MatchNotFound {
				if merr.appliedAt = pl.appliedAt(h); merr.appliedAt == 0 {
					merr.near = pl.nearMiss(h.oldLines())
				}
			}
			errs = append(errs, merr)
		}
	}
	if len(errs) == 0 {
		if err := c.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
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
