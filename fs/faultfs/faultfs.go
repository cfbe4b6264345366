package faultfs

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/spf13/afero"
)

// Op names a kind of filesystem operation observed by an [Fs]. The package
// documentation lists which methods map to which Op.
type Op string

// The operations an [Fs] observes.
const (
	OpCreate   Op = "create"   // Fs.Create, Fs.OpenFile with O_CREATE
	OpOpen     Op = "open"     // Fs.Open, Fs.OpenFile without O_CREATE
	OpWrite    Op = "write"    // File.Write, WriteAt, WriteString, Truncate
	OpSync     Op = "sync"     // File.Sync
	OpClose    Op = "close"    // File.Close
	OpRename   Op = "rename"   // Fs.Rename
	OpChmod    Op = "chmod"    // Fs.Chmod
	OpChtimes  Op = "chtimes"  // Fs.Chtimes
	OpChown    Op = "chown"    // Fs.Chown
	OpRemove   Op = "remove"   // Fs.Remove, Fs.RemoveAll
	OpMkdir    Op = "mkdir"    // Fs.Mkdir, Fs.MkdirAll
	OpStat     Op = "stat"     // Fs.Stat, Fs.LstatIfPossible, File.Stat
	OpRead     Op = "read"     // File.Read, ReadAt, Readdir, Readdirnames
	OpSymlink  Op = "symlink"  // Fs.SymlinkIfPossible
	OpLink     Op = "link"     // Fs.Link
	OpReadlink Op = "readlink" // Fs.ReadlinkIfPossible
)

// ErrInjected is wrapped by every error an [Fs] injects, so callers can
// recognise injected faults with errors.Is(err, faultfs.ErrInjected).
var ErrInjected = errors.New("faultfs: injected fault")

// An Event records one counted operation.
type Event struct {
	// N is the 1-based position of the operation among counted operations.
	N int
	// Op is the kind of operation.
	Op Op
	// Name is the path the operation was called with.
	Name string
	// Err is the error the operation returned to its caller: nil on
	// success, the base's error, or the injected error. It is nil in the
	// Event carried by an [Error], and for an operation still in progress.
	Err error
}

// Error is the fault an [Fs] injects. Callers receive it wrapped in an
// [*os.PathError] or [*os.LinkError].
type Error struct {
	// Event is the operation that was made to fail.
	Event
}

// Error describes the injected fault.
func (e *Error) Error() string {
	return fmt.Sprintf("%v at operation %d (%s)", ErrInjected, e.N, e.Op)
}

// Unwrap returns [ErrInjected].
func (e *Error) Unwrap() error { return ErrInjected }

// Is reports whether target is an *Error, so errors.Is(err, &faultfs.Error{})
// matches any injected fault.
func (e *Error) Is(target error) bool {
	_, ok := target.(*Error)
	return ok
}

// An Option configures an [Fs] in [New] or [Fs.Reset]. Options are built
// with [CountReads] and the rule constructors.
type Option interface {
	apply(*config)
}

// A Rule selects counted operations that must fail. It is built with
// [FailAt], [FailNth] or [FailEvery] and passed to [New] or [Fs.Reset].
type Rule interface {
	Option
	isRule()
}

type config struct {
	countReads bool
	rules      []*rule
}

// rule fails the nth counted operation matching pred, or every matching
// one when nth is 0. A nil pred matches every operation.
type rule struct {
	nth  int
	pred func(Op, string) bool
}

func (r *rule) apply(c *config) { c.rules = append(c.rules, r) }
func (r *rule) isRule()         {}

// FailAt returns a rule that fails the k-th counted operation and no other.
// It panics if k < 1.
func FailAt(k int) Rule {
	return newNth("FailAt", k, nil)
}

// FailNth returns a rule that fails the k-th counted operation for which
// pred(op, name) reports true. A nil pred matches every operation. It panics
// if k < 1. pred is called with the Fs's lock held and must not use the Fs.
func FailNth(k int, pred func(op Op, name string) bool) Rule {
	return newNth("FailNth", k, pred)
}

// FailEvery returns a rule that fails every counted operation for which
// pred(op, name) reports true. A nil pred matches every operation. pred is
// called with the Fs's lock held and must not use the Fs.
func FailEvery(pred func(op Op, name string) bool) Rule {
	return &rule{pred: pred}
}

func newNth(fn string, k int, pred func(Op, string) bool) Rule {
	if k < 1 {
		panic(fmt.Sprintf("faultfs.%s(%d): k must be at least 1", fn, k))
	}
	return &rule{nth: k, pred: pred}
}

type countReads struct{}

func (countReads) apply(c *config) { c.countReads = true }

// CountReads returns an option that counts reading operations (opens for
// reading, stats, reads, closes of read-only files, readlinks) as well as
// mutating ones, so rules can select them.
func CountReads() Option { return countReads{} }

// Fs is an [afero.Fs] that delegates to a base filesystem and fails the
// operations its rules select. It also implements [afero.Lstater] and
// [afero.Symlinker], and makes hard links with Link. Use [New] to create one.
type Fs struct {
	base afero.Fs

	mu   sync.Mutex
	cfg  config
	hits []int // per rule, counted operations its predicate matched
	gen  int   // bumped by Reset, so late results of old operations are dropped
	log  []Event
}

var (
	_ afero.Fs        = (*Fs)(nil)
	_ afero.Lstater   = (*Fs)(nil)
	_ afero.Symlinker = (*Fs)(nil)
	_ afero.File      = (*file)(nil)
)

// New returns an Fs that wraps base and fails the operations selected by
// the rules among opts. With no rule, nothing fails and the Fs only counts
// and logs operations.
func New(base afero.Fs, opts ...Option) *Fs {
	ffs := &Fs{base: base}
	ffs.Reset(opts...)
	return ffs
}

// Unwrap returns the filesystem the Fs wraps, so that a caller that treats filesystems
// by kind (in memory or on disk) treats the Fs as its base.
func (ffs *Fs) Unwrap() afero.Fs { return ffs.base }

// Reset clears the count and the event log and replaces all options with
// opts, exactly as if the Fs had just been created by [New] with them.
func (ffs *Fs) Reset(opts ...Option) {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	ffs.mu.Lock()
	defer ffs.mu.Unlock()
	ffs.cfg = cfg
	ffs.hits = make([]int, len(cfg.rules))
	ffs.gen++
	ffs.log = nil
}

// Count returns the number of counted operations started so far, including
// failed ones.
func (ffs *Fs) Count() int {
	ffs.mu.Lock()
	defer ffs.mu.Unlock()
	return len(ffs.log)
}

// Events returns a copy of the log of counted operations, in order of N,
// including failed ones.
func (ffs *Fs) Events() []Event {
	ffs.mu.Lock()
	defer ffs.mu.Unlock()
	return append([]Event(nil), ffs.log...)
}

// Name returns "faultfs(" + the base's name + ")".
func (ffs *Fs) Name() string { return "faultfs(" + ffs.base.Name() + ")" }

// token identifies a counted operation in progress; n is 0 when the
// operation is not counted.
type token struct{ gen, n int }

// begin counts and logs an operation when it should be counted and returns
// the injected fault when a rule selects it.
func (ffs *Fs) begin(op Op, name string, mutating bool) (token, *Error) {
	ffs.mu.Lock()
	defer ffs.mu.Unlock()
	if !mutating && !ffs.cfg.countReads {
		return token{}, nil
	}
	ev := Event{N: len(ffs.log) + 1, Op: op, Name: name}
	ffs.log = append(ffs.log, ev)
	t := token{gen: ffs.gen, n: ev.N}
	if ffs.selected(op, name) {
		return t, &Error{Event: ev}
	}
	return t, nil
}

// selected advances every rule matching the operation and reports whether
// any of them fires. The caller holds ffs.mu.
func (ffs *Fs) selected(op Op, name string) bool {
	fire := false
	for i, r := range ffs.cfg.rules {
		if r.pred != nil && !r.pred(op, name) {
			continue
		}
		ffs.hits[i]++
		if r.nth == 0 || ffs.hits[i] == r.nth {
			fire = true
		}
	}
	return fire
}

// end records the error a counted operation returned.
func (ffs *Fs) end(t token, err error) {
	if t.n == 0 {
		return
	}
	ffs.mu.Lock()
	defer ffs.mu.Unlock()
	if t.gen == ffs.gen {
		ffs.log[t.n-1].Err = err
	}
}

// call describes one observed operation.
type call struct {
	op       Op
	name     string
	mutating bool
	wrap     func(*Error) error // builds the error returned for an injected fault
}

func pathCall(op Op, osOp, name string, mutating bool) call {
	return call{op: op, name: name, mutating: mutating, wrap: func(e *Error) error {
		return &os.PathError{Op: osOp, Path: name, Err: e}
	}}
}

func linkCall(op Op, osOp, oldname, newname, name string) call {
	return call{op: op, name: name, mutating: true, wrap: func(e *Error) error {
		return &os.LinkError{Op: osOp, Old: oldname, New: newname, Err: e}
	}}
}

// observe runs do unless a rule selects the operation, in which case it
// returns the injected error without calling do.
func observe[T any](ffs *Fs, c call, do func() (T, error)) (T, error) {
	t, injected := ffs.begin(c.op, c.name, c.mutating)
	if injected != nil {
		err := c.wrap(injected)
		ffs.end(t, err)
		var zero T
		return zero, err
	}
	v, err := do()
	ffs.end(t, err)
	return v, err
}

func observeErr(ffs *Fs, c call, do func() error) error {
	_, err := observe(ffs, c, func() (struct{}, error) { return struct{}{}, do() })
	return err
}

// writeFlags are the OpenFile flags that make a file "opened for writing".
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND

// Create observes [OpCreate] and creates name in the base.
func (ffs *Fs) Create(name string) (afero.File, error) {
	c := pathCall(OpCreate, "open", name, true)
	return ffs.open(c, true, func() (afero.File, error) { return ffs.base.Create(name) })
}

// Open observes [OpOpen] (a read) and opens name in the base.
func (ffs *Fs) Open(name string) (afero.File, error) {
	c := pathCall(OpOpen, "open", name, false)
	return ffs.open(c, false, func() (afero.File, error) { return ffs.base.Open(name) })
}

// OpenFile observes [OpCreate] when flag has O_CREATE and [OpOpen]
// otherwise; the operation is mutating when flag opens the file for writing.
func (ffs *Fs) OpenFile(name string, flag int, perm os.FileMode) (afero.File, error) {
	op := OpOpen
	if flag&os.O_CREATE != 0 {
		op = OpCreate
	}
	writable := flag&writeFlags != 0
	c := pathCall(op, "open", name, writable)
	return ffs.open(c, writable, func() (afero.File, error) { return ffs.base.OpenFile(name, flag, perm) })
}

func (ffs *Fs) open(c call, writable bool, do func() (afero.File, error)) (afero.File, error) {
	return observe(ffs, c, func() (afero.File, error) {
		f, err := do()
		if f == nil {
			return nil, err
		}
		return &file{ffs: ffs, f: f, name: c.name, writable: writable}, err
	})
}

// Mkdir observes [OpMkdir].
func (ffs *Fs) Mkdir(name string, perm os.FileMode) error {
	return observeErr(ffs, pathCall(OpMkdir, "mkdir", name, true), func() error { return ffs.base.Mkdir(name, perm) })
}

// MkdirAll observes [OpMkdir] once for the whole path.
func (ffs *Fs) MkdirAll(path string, perm os.FileMode) error {
	return observeErr(ffs, pathCall(OpMkdir, "mkdir", path, true), func() error { return ffs.base.MkdirAll(path, perm) })
}

// Remove observes [OpRemove].
func (ffs *Fs) Remove(name string) error {
	return observeErr(ffs, pathCall(OpRemove, "remove", name, true), func() error { return ffs.base.Remove(name) })
}

// RemoveAll observes [OpRemove] once for the whole tree.
func (ffs *Fs) RemoveAll(path string) error {
	return observeErr(ffs, pathCall(OpRemove, "remove", path, true), func() error { return ffs.base.RemoveAll(path) })
}

// Rename observes [OpRename] under oldname; an injected fault is an
// [*os.LinkError].
func (ffs *Fs) Rename(oldname, newname string) error {
	c := linkCall(OpRename, "rename", oldname, newname, oldname)
	return observeErr(ffs, c, func() error { return ffs.base.Rename(oldname, newname) })
}

// RenameNoReplace observes [OpRename] under oldname and renames oldname to newname
// unless newname exists, which fails with an error matching [fs.ErrExist] and leaves
// both names as they were, when the base can: the operating system's filesystem, or one
// with a RenameNoReplace(oldname, newname string) error method (as fs/rootfs has).
// Otherwise it returns an [*os.LinkError] wrapping [errors.ErrUnsupported] without
// counting.
func (ffs *Fs) RenameNoReplace(oldname, newname string) error {
	switch ffs.base.(type) {
	case *afero.OsFs, interface {
		RenameNoReplace(oldname, newname string) error
	}:
	default:
		return &os.LinkError{Op: "renameat2", Old: oldname, New: newname, Err: errors.ErrUnsupported}
	}
	c := linkCall(OpRename, "rename", oldname, newname, oldname)
	return observeErr(ffs, c, func() error { return splitfs.RenameNoReplace(ffs.base, oldname, newname) })
}

// Stat observes [OpStat] (a read).
func (ffs *Fs) Stat(name string) (os.FileInfo, error) {
	return observe(ffs, pathCall(OpStat, "stat", name, false), func() (os.FileInfo, error) { return ffs.base.Stat(name) })
}

// Chmod observes [OpChmod].
func (ffs *Fs) Chmod(name string, mode os.FileMode) error {
	return observeErr(ffs, pathCall(OpChmod, "chmod", name, true), func() error { return ffs.base.Chmod(name, mode) })
}

// Chown observes [OpChown].
func (ffs *Fs) Chown(name string, uid, gid int) error {
	return observeErr(ffs, pathCall(OpChown, "chown", name, true), func() error { return ffs.base.Chown(name, uid, gid) })
}

// Chtimes observes [OpChtimes].
func (ffs *Fs) Chtimes(name string, atime, mtime time.Time) error {
	return observeErr(ffs, pathCall(OpChtimes, "chtimes", name, true), func() error { return ffs.base.Chtimes(name, atime, mtime) })
}

// LstatIfPossible observes [OpStat] (a read). It delegates to the base's
// LstatIfPossible when the base is an [afero.Lstater] and to Stat otherwise,
// reporting whether Lstat was used.
func (ffs *Fs) LstatIfPossible(name string) (os.FileInfo, bool, error) {
	lstat := false
	fi, err := observe(ffs, pathCall(OpStat, "lstat", name, false), func() (os.FileInfo, error) {
		l, ok := ffs.base.(afero.Lstater)
		if !ok {
			return ffs.base.Stat(name)
		}
		fi, called, err := l.LstatIfPossible(name)
		lstat = called
		return fi, err
	})
	return fi, lstat, err
}

// SymlinkIfPossible observes [OpSymlink] under newname when the base is an
// [afero.Linker]; otherwise it returns an [*os.LinkError] wrapping
// [afero.ErrNoSymlink] without counting.
func (ffs *Fs) SymlinkIfPossible(oldname, newname string) error {
	l, ok := ffs.base.(afero.Linker)
	if !ok {
		return &os.LinkError{Op: "symlink", Old: oldname, New: newname, Err: afero.ErrNoSymlink}
	}
	c := linkCall(OpSymlink, "symlink", oldname, newname, newname)
	return observeErr(ffs, c, func() error { return l.SymlinkIfPossible(oldname, newname) })
}

// Link observes [OpLink] under newname and makes newname a hard link to
// oldname in the base, when the base has hard links: the operating system's
// filesystem, or one with a Link(oldname, newname string) error method (as
// fs/rootfs has). Otherwise it returns an [*os.LinkError] wrapping
// [errors.ErrUnsupported] without counting.
func (ffs *Fs) Link(oldname, newname string) error {
	link := splitfs.Linker(ffs.base)
	if link == nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: errors.ErrUnsupported}
	}
	c := linkCall(OpLink, "link", oldname, newname, newname)
	return observeErr(ffs, c, func() error { return link(oldname, newname) })
}

// ReadlinkIfPossible observes [OpReadlink] (a read) when the base is an
// [afero.LinkReader]; otherwise it returns an [*os.PathError] wrapping
// [afero.ErrNoReadlink] without counting.
func (ffs *Fs) ReadlinkIfPossible(name string) (string, error) {
	r, ok := ffs.base.(afero.LinkReader)
	if !ok {
		return "", &os.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
	}
	return observe(ffs, pathCall(OpReadlink, "readlink", name, false), func() (string, error) { return r.ReadlinkIfPossible(name) })
}

// file wraps a base file so its operations are observed too.
type file struct {
	ffs      *Fs
	f        afero.File
	name     string // the path the file was opened with
	writable bool   // opened for writing: Close is then mutating
}

func (f *file) call(op Op, osOp string, mutating bool) call {
	return pathCall(op, osOp, f.name, mutating)
}

// Close observes [OpClose]. Even when the fault is injected, the base file
// is closed before the injected error is returned.
func (f *file) Close() error {
	c := f.call(OpClose, "close", f.writable)
	t, injected := f.ffs.begin(c.op, c.name, c.mutating)
	closeErr := f.f.Close()
	err := closeErr
	if injected != nil {
		err = c.wrap(injected)
	}
	f.ffs.end(t, err)
	return err
}

func (f *file) Read(p []byte) (int, error) {
	return observe(f.ffs, f.call(OpRead, "read", false), func() (int, error) { return f.f.Read(p) })
}

func (f *file) ReadAt(p []byte, off int64) (int, error) {
	return observe(f.ffs, f.call(OpRead, "read", false), func() (int, error) { return f.f.ReadAt(p, off) })
}

func (f *file) Seek(offset int64, whence int) (int64, error) { return f.f.Seek(offset, whence) }

func (f *file) Write(p []byte) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.Write(p) })
}

func (f *file) WriteAt(p []byte, off int64) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.WriteAt(p, off) })
}

func (f *file) WriteString(s string) (int, error) {
	return observe(f.ffs, f.call(OpWrite, "write", true), func() (int, error) { return f.f.WriteString(s) })
}

func (f *file) Truncate(size int64) error {
	return observeErr(f.ffs, f.call(OpWrite, "truncate", true), func() error { return f.f.Truncate(size) })
}

func (f *file) Sync() error {
	return observeErr(f.ffs, f.call(OpSync, "sync", true), f.f.Sync)
}

func (f *file) Name() string { return f.f.Name() }

func (f *file) Readdir(count int) ([]os.FileInfo, error) {
	return observe(f.ffs, f.call(OpRead, "readdir", false), func() ([]os.FileInfo, error) { return f.f.Readdir(count) })
}

func (f *file) Readdirnames(n int) ([]string, error) {
	return observe(f.ffs, f.call(OpRead, "readdir", false), func() ([]string, error) { return f.f.Readdirnames(n) })
}

func (f *file) Stat() (os.FileInfo, error) {
	return observe(f.ffs, f.call(OpStat, "stat", false), f.f.Stat)
}
