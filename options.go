package applypatch

import (
	"io/fs"

	"golang.org/x/text/encoding"
)

// Options configure [Resolve] and, through the proposal it returns, [Review] and [Commit].
// The zero value is usable: the workspace is the filesystem's root "/", the mode is
// [FullAuto], and the default limits apply.
type Options struct {
	// Workspace is the directory, in the afero filesystem, that payload paths are relative
	// to and that fences them (F1, F2). Empty means "/".
	Workspace string
	// Mode is the approval mode (F4).
	Mode Mode
	// Authorizer decides paths outside the workspace or protected ones (F4). Without one,
	// such paths are refused.
	Authorizer Authorizer
	// Protected lists path patterns, matched like Forbidden, that need the Authorizer
	// even inside the workspace. Nil means [DefaultProtected].
	Protected []string
	// Forbidden lists path patterns refused in every mode, added to [DefaultForbidden].
	Forbidden []string
	// Encoding returns the encoding the host declares for a path (the resolved name in the
	// filesystem) and the name to show for it, or nil for UTF-8 (T3). Updates decode and
	// re-encode the file byte-exactly, and Adds are written, in that encoding; a file not
	// valid in it, or a result with a character it cannot hold, is refused with an
	// [*EncodingError]. A byte-order mark in the file takes precedence.
	Encoding func(name string) (encoding.Encoding, string)
	// Expected holds expected-before snapshots the host supplies (what it last saw at a
	// path), keyed by resolved name or by the path as authored. Commit checks them with
	// the captured baselines for the whole batch before the first write and again just
	// before each path's write (X2); a mismatch is a [*ConflictError]. Only paths the
	// commit writes or removes are checked.
	Expected map[string]Snapshot
	// Owner, when set, is asked before every write, buffer refresh and rollback step, with
	// the resolved name; a path it no longer owns is not touched (X8).
	Owner OwnerPredicate
	// Buffers, when set, connects open editor buffers to a commit (X9): a buffer with
	// unsaved edits of a path to be written refuses the commit with an
	// [*UnsavedBufferError], and after success Refresh is called for every path written
	// or removed whose buffer is unmodified.
	Buffers BufferHook
	// FileMode is the mode of added files, set exactly whatever the umask; zero means
	// 0644 (T6). Updates keep the file's mode and Moves the source's.
	FileMode fs.FileMode
	// Sync makes every written file reach stable storage before it replaces the old one,
	// and syncs its directory after the rename where the platform can (X4). Off by
	// default: it costs two fsyncs per written file, and what those cost depends on the
	// disk and filesystem; BenchmarkCommitSync measures it.
	Sync bool
	// Limits bound the work one payload can ask for (T5). Zero fields take the defaults.
	Limits Limits
}

// Limits bound what one payload may do (T5). Exceeding one is an error before any
// change.
type Limits struct {
	// Payload is the largest payload, in bytes (default 16 MiB).
	Payload int
	// Operations is the most sections one payload may have (default 10000).
	Operations int
	// AddBytes is the most one Add may create, in bytes (default 2 MiB).
	AddBytes int
	// FileBytes is the largest file an Update, Move or Delete may read (default 256 MiB).
	FileBytes int64
}

// DefaultLimits are the limits used for zero fields of [Limits].
var DefaultLimits = Limits{
	Payload:    16 << 20,
	Operations: 10000,
	AddBytes:   2 << 20,
	FileBytes:  256 << 20,
}

func (l Limits) withDefaults() Limits {
	if l.Payload <= 0 {
		l.Payload = DefaultLimits.Payload
	}
	if l.Operations <= 0 {
		l.Operations = DefaultLimits.Operations
	}
	if l.AddBytes <= 0 {
		l.AddBytes = DefaultLimits.AddBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = DefaultLimits.FileBytes
	}
	return l
}

func (o *Options) fileMode() fs.FileMode {
	if o.FileMode == 0 {
		return 0o644
	}
	return o.FileMode
}

func (o *Options) workspace() string {
	if o.Workspace == "" {
		return "/"
	}
	return o.Workspace
}

// OwnerFunc adapts a function to [OwnerPredicate].
type OwnerFunc func(name string) bool

// Owns calls f.
func (f OwnerFunc) Owns(name string) bool { return f(name) }
