package applypatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// stepKind is what one planned step does.
type stepKind int

const (
	stepWrite  stepKind = iota + 1 // replace or create a file (parents created as needed)
	stepRemove                     // remove a file
)

// A step is one planned filesystem change of a transaction. The plan is computed before
// the first write, so it can be checked as a whole (X2) and failed at any point in tests.
type step struct {
	kind stepKind
	name string      // resolved name
	path string      // authored path, for errors and results
	data []byte      // stepWrite: the new bytes
	mode fs.FileMode // stepWrite: the new mode
	base Baseline    // the state the path must still be in just before the step
}

// state is what a path holds when read: absent, a directory, or a file's bytes and mode.
// err is set when the path could not be read; such a state matches nothing.
type state struct {
	exists bool
	dir    bool
	data   []byte
	mode   fs.FileMode
	err    error
}

// hash is the hex SHA-256 of the state's bytes, computed only where a hash must be
// compared: hashing a large file costs more than comparing it.
func (s state) hash() string { return hashBytes(s.data) }

// is reports whether the state is the baseline b: by bytes when the baseline keeps them,
// else by hash, so a baseline that keeps only its hash (R12) is checked as well.
func (s state) is(b Baseline) bool {
	switch {
	case s.err != nil:
		return false
	case !b.Exists || !s.exists:
		return b.Exists == s.exists
	case b.Dir || s.dir || s.mode != b.Mode:
		return false
	case b.Bytes != nil || b.Hash == "":
		return bytes.Equal(s.data, b.Bytes)
	}
	return s.hash() == b.Hash
}

// same reports whether two read states hold the same thing.
func (s state) same(o state) bool {
	switch {
	case s.err != nil || o.err != nil:
		return false
	case !s.exists || !o.exists:
		return s.exists == o.exists
	}
	return !s.dir && !o.dir && s.mode == o.mode && bytes.Equal(s.data, o.data)
}

// satisfies checks the state against a host-supplied snapshot: presence always, the hash
// and the mode when the snapshot has them.
func (s state) satisfies(snap Snapshot) bool {
	switch {
	case s.err != nil:
		return false
	case !snap.Exists || !s.exists:
		return snap.Exists == s.exists
	}
	return !s.dir && (snap.Mode == 0 || snap.Mode == s.mode) && (snap.Hash == "" || snap.Hash == s.hash())
}

// satisfiesAll checks the state against every snapshot the host supplies for its path.
func (s state) satisfiesAll(snaps []Snapshot) bool {
	for _, snap := range snaps {
		if !s.satisfies(snap) {
			return false
		}
	}
	return true
}

// done is one started step of the journal: what the path held just before it, so that
// rollback can tell what this transaction wrote from what someone else wrote (X5).
type done struct {
	step   *step
	before state
	// inPlace is set when rename was impossible and the file was rewritten in place:
	// any prefix of the step's bytes, in any mode, may then be this transaction's.
	inPlace bool
}

// ours reports whether cur is a state this transaction's step left the path in.
func (d *done) ours(cur state) bool {
	st := d.step
	switch {
	case cur.err != nil || cur.dir:
		return false
	case st.kind == stepRemove:
		return !cur.exists
	case !cur.exists:
		return false
	case d.inPlace:
		return bytes.HasPrefix(st.data, cur.data)
	}
	return cur.mode == st.mode && bytes.Equal(cur.data, st.data)
}

// created is a file or directory the transaction created besides its targets: a parent
// directory, or a temporary file not yet renamed. path names it for errors.
type created struct {
	name, path string
}

// txn runs a plan: check, write in order, and on failure restore in reverse.
type txn struct {
	fsys    afero.Fs
	opts    *Options
	plan    []*step
	journal []*done
	dirs    []created // directories created, outermost first
	temps   []created // temporary files not yet renamed or removed
	// guard, when set, vets a step just before it runs; the fence re-resolves its path
	// there (F1).
	guard func(*step) error
	// present holds directories known to exist.
	present map[string]bool
	// expected are the snapshots the host expects, by resolved name (X2).
	expected map[string][]Snapshot
}

// run executes the plan as one transaction (X2–X6, X8): the whole batch is checked
// before the first write, each path again just before its own, and any failure rolls
// back what was written.
func (tx *txn) run(ctx context.Context) error {
	if err := tx.precheck(); err != nil {
		return err
	}
	for _, st := range tx.plan {
		if err := tx.exec(ctx, st); err != nil {
			return tx.rollback(err)
		}
	}
	return nil
}

// precheck checks every step of the batch before anything is written: each path must be
// owned by the host (X8) and still hold its baseline and any snapshot the host expects
// (X2).
func (tx *txn) precheck() error {
	var lost []string
	stale := &ConflictError{}
	for _, st := range tx.plan {
		if !tx.owns(st.name) {
			lost = appendNew(lost, st.path)
			continue
		}
		cur := tx.readStep(st)
		if cur.err != nil {
			return tx.unreadable(st, cur.err)
		}
		tx.check(st, cur, stale)
	}
	if len(lost) > 0 {
		return &OwnerError{Paths: lost}
	}
	if len(stale.Paths) > 0 {
		return stale
	}
	return nil
}

// check adds a step's path to the conflict when the path no longer holds the step's
// baseline, or fails a snapshot the host expects for it.
func (tx *txn) check(st *step, cur state, conflict *ConflictError) {
	if !cur.is(st.base) {
		conflict.Paths = appendNew(conflict.Paths, st.path)
		return
	}
	if !cur.satisfiesAll(tx.expected[st.name]) {
		conflict.Paths = appendNew(conflict.Paths, st.path)
		conflict.Expected = appendNew(conflict.Expected, st.path)
	}
}

// unreadable reports a path whose state cannot be checked: it is not written.
func (tx *txn) unreadable(st *step, err error) error {
	return readError(tx.fsys, st.name, st.path, err)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// read returns what a path holds now.
func (tx *txn) read(name string) state {
	fi, err := tx.fsys.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state{}
	case err != nil:
		return state{err: err}
	case fi.IsDir():
		return state{exists: true, dir: true, mode: fi.Mode().Perm()}
	}
	b, err := afero.ReadFile(tx.fsys, name)
	if err != nil {
		return state{err: err}
	}
	return state{exists: true, data: b, mode: fi.Mode().Perm()}
}

// readAgainst returns what a path holds now, like read, but when it still holds the
// baseline's bytes it compares them in chunks and shares the baseline's copy, so a
// check of a large unchanged file allocates nothing.
func (tx *txn) readAgainst(name string, b Baseline) state {
	if b.Bytes == nil {
		return tx.read(name)
	}
	f, err := tx.fsys.Open(name)
	if err != nil {
		return tx.read(name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(b.Bytes)) {
		return tx.read(name)
	}
	if same, err := sameContent(f, b.Bytes); err != nil || !same {
		return tx.read(name)
	}
	return state{exists: true, data: b.Bytes, mode: fi.Mode().Perm()}
}

// sameContent reports whether f holds exactly want, reading it in chunks.
func sameContent(f io.Reader, want []byte) (bool, error) {
	buf := make([]byte, min(64<<10, len(want)+1))
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return len(want) == 0, nil
		case err != nil:
			return false, err
		}
	}
}

// owns asks the host's owner predicate (X8).
func (tx *txn) owns(name string) bool {
	return tx.opts.Owner == nil || tx.opts.Owner.Owns(name)
}

// unsaved asks the buffer hook whether an open buffer of name has unsaved edits (X9).
func (tx *txn) unsaved(name string) bool {
	return tx.opts.Buffers != nil && tx.opts.Buffers.Unsaved(name)
}

// exec runs one step after checking, once more, the context, the fence (F1), the owner
// (X8), the editor buffer (X9) and the path's state (X2).
func (tx *txn) exec(ctx context.Context, st *step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if tx.guard != nil {
		if err := tx.guard(st); err != nil {
			return err
		}
	}
	if !tx.owns(st.name) {
		return &OwnerError{Paths: []string{st.path}}
	}
	if tx.unsaved(st.name) {
		return &UnsavedBufferError{Paths: []string{st.path}}
	}
	cur := tx.readStep(st)
	if cur.err != nil {
		return tx.unreadable(st, cur.err)
	}
	stale := &ConflictError{}
	if tx.check(st, cur, stale); len(stale.Paths) > 0 {
		return stale
	}
	d := &done{step: st, before: cur}
	tx.journal = append(tx.journal, d)
	var err error
	switch st.kind {
	case stepRemove:
		err = tx.fsys.Remove(st.name)
	case stepWrite:
		if err = tx.mkdirs(st); err == nil {
			err = tx.replace(st, st.data, st.mode, &d.inPlace)
		}
	}
	if err != nil {
		return sanitize(err, st.name, st.path)
	}
	return nil
}

// mkdirs creates the missing parents of a step's path one by one, recording each so
// rollback can remove exactly those (X3, X5).
func (tx *txn) mkdirs(st *step) error {
	var missing []string
	for d := filepath.Dir(st.name); !tx.present[d]; d = filepath.Dir(d) {
		if _, err := tx.fsys.Stat(d); err == nil {
			tx.known(d)
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := tx.fsys.Mkdir(d, 0o755); err != nil {
			return err
		}
		tx.dirs = append(tx.dirs, created{name: d, path: tx.display(st, d)})
		tx.known(d)
	}
	return nil
}

// known records a directory that exists, so later steps of the batch do not ask again.
// Only this transaction's steps run in the meantime: it holds the filesystem's lock.
func (tx *txn) known(dir string) {
	if tx.present == nil {
		tx.present = map[string]bool{}
	}
	tx.present[dir] = true
}

// display names a file or directory the transaction creates for a step, for errors: the
// authored path's directory at the same depth, so no host path is disclosed (F5).
func (tx *txn) display(st *step, name string) string {
	if rel, err := filepath.Rel(filepath.Dir(st.name), name); err == nil && filepath.IsLocal(rel) {
		return path.Join(path.Dir(filepath.ToSlash(st.path)), filepath.ToSlash(rel))
	}
	up, err := filepath.Rel(name, filepath.Dir(st.name))
	authored := path.Dir(filepath.ToSlash(st.path))
	if err == nil && filepath.IsLocal(up) && strings.HasSuffix(authored, "/"+filepath.ToSlash(up)) {
		return strings.TrimSuffix(authored, "/"+filepath.ToSlash(up))
	}
	if rel, err := filepath.Rel(filepath.Clean(tx.opts.workspace()), name); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return "a directory created for " + st.path
}

// tempPattern names temporary files: hidden, beside their target, recognisable.
const tempPattern = ".applypatch-*"

// tempStem is the most of a target's name a temporary file's name repeats, so that a
// target whose name is near the filesystem's limit (255 bytes) still gets a temporary
// file: ".", the stem, ".applypatch-" and ten digits stay within it.
const tempStem = 200

// tempPrefix is the start of a temporary file's name for a target's base name.
func tempPrefix(base string) string {
	if len(base) > tempStem {
		base = strings.ToValidUTF8(base[:tempStem], "")
	}
	return "." + base + tempPattern
}

// replace writes data to a step's path atomically where the filesystem allows (X4): a
// temporary file in the same directory, its mode set, optionally synced, then renamed
// over the path, and with Options.Sync the directory synced too. Where rename is
// impossible (some afero layers say EPERM, a cross-device link EXDEV) it rewrites the
// path in place and sets *inPlace, so rollback knows a partial write may be its own.
func (tx *txn) replace(st *step, data []byte, mode fs.FileMode, inPlace *bool) error {
	dir := filepath.Dir(st.name)
	tmp, err := afero.TempFile(tx.fsys, dir, tempPrefix(filepath.Base(st.name)))
	if err != nil {
		return err
	}
	t := created{name: tmp.Name(), path: tx.display(st, tmp.Name())}
	tx.temps = append(tx.temps, t)
	chmodded, err := fill(tmp, data, mode, tx.opts.Sync)
	if err == nil && !chmodded {
		err = tx.fsys.Chmod(t.name, mode)
	}
	renameErr := err
	if err == nil {
		if renameErr = tx.fsys.Rename(t.name, st.name); renameErr == nil {
			tx.forgetTemp(t.name)
			return tx.syncDir(dir)
		}
	}
	if rmErr := tx.removeTemp(t.name); err != nil || !renameImpossible(renameErr) {
		return renameErr
	} else if rmErr != nil {
		return rmErr // rollback removes it, or reports it
	}
	*inPlace = true
	return tx.rewrite(st.name, data, mode)
}

// renameImpossible reports a rename the filesystem cannot do at all, as opposed to one
// that failed.
func renameImpossible(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM)
}

// fill writes, sets the mode of, optionally syncs, and closes a file. The mode is set
// on the open file where the filesystem's files allow it (one system call, no path to
// resolve again); chmodded says whether that happened.
func fill(f afero.File, data []byte, mode fs.FileMode, sync bool) (chmodded bool, err error) {
	_, err = f.Write(data)
	if fc, ok := f.(interface{ Chmod(fs.FileMode) error }); ok && err == nil {
		err, chmodded = fc.Chmod(mode), true
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return chmodded, err
}

// rewrite replaces a file's content in place, for filesystems that cannot rename.
func (tx *txn) rewrite(name string, data []byte, mode fs.FileMode) error {
	f, err := tx.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	chmodded, err := fill(f, data, mode, tx.opts.Sync)
	if err != nil || chmodded {
		return err
	}
	return tx.fsys.Chmod(name, mode)
}

// syncDir makes a rename durable with Options.Sync, where the platform can sync a
// directory.
func (tx *txn) syncDir(dir string) error {
	if !tx.opts.Sync {
		return nil
	}
	f, err := tx.fsys.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		return nil // directories cannot be synced here
	}
	return err
}

// removeTemp removes a temporary file; one that stays is reported by rollback.
func (tx *txn) removeTemp(name string) error {
	err := tx.fsys.Remove(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		tx.forgetTemp(name)
		return nil
	}
	return err
}

func (tx *txn) forgetTemp(name string) {
	tx.temps = slices.DeleteFunc(tx.temps, func(t created) bool { return t.name == name })
}

// Why rollback left a path as it is.
const (
	reasonChanged  = "changed by someone else after this commit wrote it; left as they made it"
	reasonNotOwned = "the host no longer owns it; left as it is"
	reasonUnsaved  = "an open editor buffer of it has unsaved edits; left as this commit wrote it, and the buffer kept"
	reasonTemp     = "a temporary file this commit created; it could not be removed"
	reasonDir      = "a directory this commit created; it could not be removed"
	reasonDirFull  = "a directory this commit created; someone else put files in it"
)

// rollback restores every journaled path to what it held before its step, newest first,
// then removes the temporary files and directories the transaction created (X5). A
// path that no longer holds what this transaction wrote was changed by someone else and
// is left alone; it, and anything that cannot be restored, makes the error an
// *IncompleteRollbackError wrapping cause (X6).
func (tx *txn) rollback(cause error) error {
	lost := map[string]string{}
	for _, d := range slices.Backward(tx.journal) {
		if reason := tx.restore(d); reason != "" {
			lost[d.step.path] = reason
		}
	}
	for _, t := range slices.Clone(tx.temps) {
		tx.removeTemp(t.name)
	}
	for _, t := range tx.temps {
		if cur := tx.read(t.name); cur.exists || cur.err != nil {
			lost[t.path] = reasonTemp
		}
	}
	for _, d := range slices.Backward(tx.dirs) {
		if reason := tx.removeDir(d.name); reason != "" {
			lost[d.path] = reason
		}
	}
	if len(lost) == 0 {
		return cause
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range lost {
			if !yield(p) {
				return
			}
		}
	})
	return &IncompleteRollbackError{Cause: cause, Paths: paths, Reasons: lost}
}

// restore puts one journaled path back to what it held before its step and returns
// why it could not, or "".
func (tx *txn) restore(d *done) string {
	st := d.step
	cur := tx.read(st.name)
	if cur.err != nil {
		cur = tx.read(st.name) // once more: a read may fail transiently
	}
	switch {
	case cur.err != nil:
		return "it could not be read: " + sanitize(cur.err, st.name, st.path).Error()
	case cur.same(d.before):
		return "" // the step never took effect
	case !tx.owns(st.name):
		return reasonNotOwned
	case !d.ours(cur):
		return reasonChanged
	case tx.unsaved(st.name):
		return reasonUnsaved // restoring under an edited buffer would lose either (X6)
	}
	var err error
	switch {
	case !d.before.exists:
		err = tx.fsys.Remove(st.name)
	case st.base.IsLink():
		err = relink(tx.fsys, string(st.base.Bytes), st.name)
	default:
		var inPlace bool
		err = tx.replace(st, d.before.data, d.before.mode, &inPlace)
	}
	if err != nil && !tx.read(st.name).same(d.before) {
		return "restoring it failed: " + sanitize(err, st.name, st.path).Error()
	}
	return ""
}

// removeDir removes a directory the transaction created when it is empty, and returns
// why it stays, or "". Some afero filesystems would remove a directory with its
// content, so emptiness is checked first.
func (tx *txn) removeDir(dir string) string {
	if _, err := tx.fsys.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	names, err := readDirNames(tx.fsys, dir)
	if err != nil {
		return reasonDir
	}
	if len(names) > 0 {
		return reasonDirFull
	}
	if err := tx.fsys.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return reasonDir
	}
	return ""
}

func readDirNames(fsys afero.Fs, dir string) ([]string, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// An OwnerError refuses to write paths the host no longer owns (X8). Nothing was
// written to them, and what the commit had written is rolled back.
type OwnerError struct {
	// Paths are the paths, as authored.
	Paths []string
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("the host no longer owns %s; the patch was not applied. "+
		"Deselect the file to apply the rest, or reject the patch", strings.Join(e.Paths, ", "))
}

// Is reports whether target is an *OwnerError.
func (e *OwnerError) Is(target error) bool {
	_, ok := target.(*OwnerError)
	return ok
}
