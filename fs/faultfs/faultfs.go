package faultfs

import (
	"errors"
	"fmt"
	"os"
	"sync"

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
