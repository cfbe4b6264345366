package applypatch

import (
	"context"
	"io/fs"
	"time"

	"github.com/spf13/afero"

	"golang.org/x/text/encoding"
)

// Options configure [Resolve] and, through the proposal it returns, [Review] and [Commit].
// The zero value is usable: the workspace is the filesystem's root "/", the mode is
// [ModeAsk] (a [Tool] then hands a call in the workspace to its Reviewer, and refuses it
// without one; [Apply] and [Commit] never review), and the default limits apply.
//
// # The workspace fence
//
// Every payload path is resolved on the filesystem given to Resolve (relative paths from
// Workspace, absolute ones from the root), following every symbolic link on the way, in
// any component, to its final target, then classified as workspace, outside, protected
// or forbidden; [Classify] does the same before a call. [Commit] resolves each
// path again just before writing it, and refuses one that now lands elsewhere.
// Operations act on where a path lands: an Update through a link changes the file it
// points to, a Delete removes that file, and the link itself is left as it is. Links are
// read through afero's optional [afero.Lstater] and [afero.LinkReader]; a filesystem
// without them (MemMapFs, or a wrapper that hides them) is taken to have no links.
//
// A check in user space cannot stop a link swapped in between that last check and the
// write: afero has no openat. On an operating-system workspace the host closes that
// window by giving the directory twice, once as an [os.Root]:
//
//	root, err := rootfs.Open(dir) // github.com/applypatch/applypatch/fs/rootfs
//	...
//	opts := &applypatch.Options{Workspace: dir, WorkspaceFs: root}
//	res, err := applypatch.Apply(ctx, afero.NewOsFs(), payload, opts)
//
// Paths are resolved and classified on the OsFs, in the host's namespace, so an absolute
// path in a payload and an absolute link target mean what they say. But every read and
// write of a path that resolves inside the workspace goes through WorkspaceFs, which the
// kernel confines to the directory: a link swapped in after the check cannot carry a
// write out of the workspace. Only paths outside the workspace, which need authority
// first (Allow or the Authorizer), are read and written through the OsFs; a host that
// never allows them can give the OsFs for resolution only.
//
// Passing a confined filesystem as the Fs itself, with Workspace "/", also works and acts
// as a chroot: absolute paths and absolute link targets are read inside it, so nothing is
// ever outside, and "/etc/x" in a payload names the workspace's own etc/x.
//
// # The workspace lock
//
// A commit holds an exclusive lock on its workspace from its check of the baselines
// through its last write and any rollback, and [Recover] holds it while it repairs an
// interrupted commit. On the operating system's directories the lock is hierarchical, so
// that commits whose workspaces nest or overlap exclude each other as well: a commit
// takes a shared lock on each directory above its workspace that has the workspace
// directory's owner, from the outermost down, stopping below "/" and at the first that has
// another owner or cannot be opened, then the exclusive lock of the workspace itself. So
// commits in dir and in dir/sub wait for each other, while commits in dir/a and dir/b, or
// in two projects under one home directory, run at once. Stopping at another owner keeps
// the lock off shared directories such as /home and /tmp, which another user could hold;
// it also means that two workspaces nested across a change of owner do not exclude each
// other. Each lock is taken in the process first, keyed by the directory itself (so two
// names or two filesystem values of one directory share it), then with the kernel's lock
// (flock where the platform has it), so that two processes never interleave either. A
// commit that writes outside its workspace, where the host allows it, also holds each
// directory it writes in as a workspace of its own (the nearest one that exists), all
// taken in the order of their names, so that a commit in the workspace that holds that
// file waits for it; such a commit checks every baseline again under that lock, as a
// reviewed one does.
//
// A workspace filesystem (WorkspaceFs, else the one given) that has the method
//
//	LockWorkspace(ctx context.Context, dir string) (unlock func(), err error)
//
// supplies the lock: it waits until it holds the lock of the directory dir (a name in
// that filesystem) or ctx is done. Package fs/rootfs does, by the rule above. Without one,
// commits on the operating system's filesystem ([afero.OsFs]) lock the workspace
// directory by the rule above too; other filesystems (an [afero.MemMapFs], say) are
// locked within the process only, the whole filesystem at once. That includes an
// [afero.BasePathFs] over the operating system's filesystem: two processes committing
// through one do not exclude each other, so a host that confines a workspace that way
// for several processes gives rootfs as WorkspaceFs instead, or the Fs a LockWorkspace
// method. A wait for the lock ends
// with ctx or after LockTimeout, and LockWait is told when it lasts. The lock excludes
// only those who take it: an editor or a tool writing the same files without it is not
// held back; the baseline checks just before each write catch most of those, but not a
// write that lands between a check and the write it guards.
type Options struct {
	// Workspace is the directory, in the filesystem given to Resolve, that relative
	// payload paths start from and that fences every path. Empty means "/". It
	// may itself lie behind a symbolic link.
	Workspace string
	// WorkspaceFs, when set, carries every read and write of a path that resolves inside
	// Workspace, while resolution and classification stay on the filesystem given to
	// Resolve. It must be rooted at Workspace: it is given names relative to it with a
	// leading slash ("/" is Workspace itself, "/src/a.go" is Workspace/src/a.go). Give an
	// [os.Root]-backed filesystem (fs/rootfs) over the same directory, so that no link
	// swapped in at the last moment can lead a write out of the workspace.
	WorkspaceFs afero.Fs
	// Mode is the approval mode; see [Mode] for what each mode does with each class.
	Mode Mode
	// Authorizer decides outside and protected paths that no Allow rule covers.
	// Without one, such paths are refused.
	Authorizer Authorizer
	// Allow lists host allow rules: paths the host approves up front. An outside or
	// protected path covered by a rule needs no Authorizer, and a payload whose every
	// path is covered needs no review in ModeAsk. A rule is a
	// slash path of [path.Match] patterns that covers a path or any directory above it:
	// "docs" covers docs/a/b.md, "src/*.go" covers src/x.go, ".git/info" covers
	// .git/info/exclude. Rules match where a path lands after links: relative to the
	// workspace for a path inside it, absolute for one outside, so a rule for outside
	// paths starts with "/" ("/tmp/scratch"; "/" covers every outside path). Case is
	// ignored. No rule allows a forbidden path.
	Allow []string
	// Protected lists path patterns that need authority even inside the workspace: a
	// pattern's components match consecutive components of the path anywhere
	// ([path.Match] patterns, compared case-folded). They are matched both on the path as
	// written and where it lands, each as a whole absolute path: a workspace inside .git is
	// protected throughout, and an outside path into a .git needs protected authority as
	// well as outside authority. Nil means the default, ".git" anywhere, since a write to
	// .git/hooks is code execution; a non-nil list replaces it (list ".git" to keep it),
	// and an empty one protects nothing.
	Protected []string
	// Forbidden lists path patterns refused in every mode, added to the built-in
	// credential locations: .ssh, .gnupg, .aws/credentials, .netrc, .git-credentials and
	// .docker/config.json, matched anywhere.
	// They are matched like Protected, so ".ssh" forbids ~/.ssh/config and a link that
	// leads there.
	Forbidden []string
	// Encoding returns the encoding the host declares for a path (the resolved name in the
	// filesystem) and the name to show for it, or nil for UTF-8. Updates decode and
	// re-encode the file byte-exactly, and Adds are written, in that encoding; a file not
	// valid in it, or a result with a character it cannot hold, is refused with a
	// [*FileError] of reason FileUndecodable whose text says which line and character.
	// A byte-order mark in the file takes precedence.
	Encoding func(name string) (encoding.Encoding, string)
	// Expected holds expected-before snapshots the host supplies (what it last saw at a
	// path), keyed by any spelling of a path of the payload: the resolved name, the path
	// as authored, or another path, relative to Workspace or absolute, that leads to the
	// same file through "." and ".." and symbolic links. Commit checks them with the
	// captured baselines for the whole batch before the first write and again just
	// before each path's write; a mismatch is a [*ConflictError] whose Expected
	// names the path. A deselected path is not checked. A key that names no path of the
	// payload is a [*ConflictError] of reason [ConflictNotInPatch] from Resolve and Commit,
	// never skipped.
	Expected map[string]Snapshot
	// Owner, when set, is asked before every write, buffer refresh and rollback step, with
	// the resolved name; a path it no longer owns is not touched.
	Owner OwnerPredicate
	// Buffers, when set, connects open editor buffers to a commit: a buffer with
	// unsaved edits of a path to be written refuses the commit with a
	// [*ConflictError] of reason ConflictUnsaved, and after success Refresh is called for every path written
	// or removed whose buffer is unmodified.
	Buffers BufferHook
	// AfterCommit, when set, runs after a review's successful commit and before the review
	// settles: the place for host diagnostics. The review stays inert meanwhile, and
	// an abort still settles it first. The change is written whatever it does: a panic in
	// it is told in the result rather than failing the review.
	AfterCommit func(ctx context.Context, res *Result)
	// FileMode is the mode of added files, set exactly whatever the umask; zero means
	// 0644. Updates keep the file's mode and Moves the source's.
	FileMode fs.FileMode
	// Sync makes every written file reach stable storage before it replaces the old one,
	// and syncs its directory once the file is in place where the platform can. Off by
	// default: it costs two fsyncs per written file, and what those cost depends on the
	// disk and filesystem; BenchmarkCommitSync measures it.
	Sync bool
	// JournalKey authenticates the journal a commit keeps for recovery, so that only a
	// journal this host wrote is ever acted on: one planted in a cloned repository or a
	// tarball is left alone and reported. Nil means a key of this process for an
	// [afero.MemMapFs], whose journals no other process can see, and the user's key for
	// every other filesystem (kept in $XDG_STATE_HOME/applypatch/, by default
	// ~/.local/state/applypatch/, made private on first use). A host whose journals must be recovered by another user
	// or machine passes its own key here: at least 16 random bytes, kept secret.
	JournalKey []byte
	// History, when set, records every commit of a proposal resolved with these options
	// (see [History]), for [Undo] and [Redo], which read it from here too. A commit
	// whose entry cannot be written still stands; its result says the change cannot be
	// undone. Nil keeps no history.
	History *History
	// LockTimeout bounds each wait for the workspace lock (see the Options doc); zero
	// waits as long as ctx allows. A wait it ends is a [*ConflictError] of reason
	// ConflictLocked that wraps [context.DeadlineExceeded], with nothing written.
	LockTimeout time.Duration
	// LockWait, when set, is told once when a commit or [Recover] has waited almost a
	// second for the workspace lock: dir is the directory whose lock it waits for, the
	// workspace or one above it, named as the host knows it, and holder is the process
	// that holds that lock (this process for another commit of its own; others are read
	// from /proc/locks on Linux), 0 when it is not known. It runs before the wait ends, on
	// the waiting goroutine, or on one of its own when the lock is a host filesystem's own
	// LockWorkspace; a host says there that the commit is waiting, and for whom.
	LockWait func(dir string, holder int)
	// Limits bound the work one payload can ask for. Zero fields take the defaults each
	// field names.
	Limits Limits
}

// Limits bound what one payload may do. Exceeding one is an error before any
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

// defaultLimits returns the limits used for zero fields of [Limits].
func defaultLimits() Limits {
	return Limits{
		Payload:    16 << 20,
		Operations: 10000,
		AddBytes:   2 << 20,
		FileBytes:  256 << 20,
	}
}

func (l Limits) withDefaults() Limits {
	d := defaultLimits()
	if l.Payload <= 0 {
		l.Payload = d.Payload
	}
	if l.Operations <= 0 {
		l.Operations = d.Operations
	}
	if l.AddBytes <= 0 {
		l.AddBytes = d.AddBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = d.FileBytes
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

// ownerFunc adapts a function to [OwnerPredicate].
type ownerFunc func(name string) bool

// Owns calls f.
func (f ownerFunc) Owns(name string) bool { return f(name) }

// An OwnerPredicate tells whether the host still owns a path: a commit asks it before
// every write, buffer refresh and rollback step, and leaves a path it no longer owns alone.
type OwnerPredicate interface {
	Owns(name string) bool
}

// A BufferHook connects an editor's open buffers to a commit.
type BufferHook interface {
	// Unsaved reports whether an open buffer of name has edits not yet saved.
	Unsaved(name string) bool
	// Refresh reloads an open, unmodified buffer of name after a commit.
	Refresh(name string) error
}
