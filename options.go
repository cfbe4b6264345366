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
	// filesystem), or nil for UTF-8 (T3). A byte-order mark in the file takes precedence.
	Encoding func(name string) (encoding.Encoding, string)
	// Expected holds expected-before snapshots the host supplies, keyed by resolved name,
	// checked with the captured baselines before any write (X2).
	Expected map[string]Snapshot
	// Owner, when set, is asked before every write, buffer refresh and rollback step (X8).
	Owner OwnerPredicate
	// Buffers, when set, refreshes editor buffers after a commit (X9).
	Buffers BufferHook
	// FileMode is the mode of added files; zero means 0644 (T6).
	FileMode fs.FileMode
	// Sync makes every written file reach stable storage before it replaces the old one
	// (X4). Off by default: it costs one fsync per file.
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
