// Package applypatch applies the multi-file patches coding agents write: the
// "*** Begin Patch" … "*** End Patch" payloads with Add, Update, Delete and Move sections
// that OpenAI Codex, OpenCode and others use. It places every hunk at exactly one place
// or refuses the patch, keeps every byte of the files it was not asked to change, lets a
// person review the change through a front end the host chooses, and writes the whole
// change as one all-or-nothing transaction.
//
// # Where to start
//
//   - One call, no review: [Apply] (and [Check], its dry run). The [*Result] it returns
//     renders what the model reads ([Result.Text]).
//   - Review before writing: [ResolvePayload] (or [Parse] then [Resolve]) gives a
//     [*Proposal]; [Review] hands it to a [Reviewer]; [Commit] writes a proposal as is.
//   - An agent framework: [Tool], whose [Tool.Definition] registers "apply_patch" and whose
//     [Tool.Call] and [Tool.CallResponses] handle a call.
//   - A review front end: [Session], the live review a Reviewer drives ([Session.View],
//     [Session.Select], [Session.SetFeedback], [Session.Revise], [Session.Submit]);
//     [ReviewerFunc] turns a function into a Reviewer, for policies and tests.
//   - Host policy: [Options] with an [Authorizer], an [OwnerPredicate] and a [BufferHook].
//   - The errors: one type per thing that went wrong, listed under Errors below.
//
// # Pipeline
//
// Four stages, each usable alone, over an [afero.Fs] so a host can run all of it in
// memory:
//
//   - [Parse] reads a payload into a [*Patch]. It accepts what models send (whitespace
//     around markers, a shell heredoc wrapper, CRLF, an Environment ID line, a dropped
//     space on an empty context line, an omitted first "@@") and refuses what could apply
//     something the model did not mean (text around the envelope, a missing End marker,
//     unknown headers, two operations on one path). [Format] writes a Patch back.
//   - [Resolve] fences and classifies every path, asks the [Authorizer] where needed,
//     captures each path's baseline, places every hunk and derives every result. It
//     writes nothing. Its [*Proposal] is the reviewable change.
//   - [Review] hands a [*Session] to the host's [Reviewer] — a terminal, an editor, a web
//     page, a policy in code — which selects, comments on and revises hunks.
//   - [Commit] writes the selection as one transaction: every baseline is checked before
//     the first write and each path again just before its own; files are replaced
//     atomically; any failure restores every path written so far.
//
// [Apply] runs Parse, Resolve and Commit for the common agent call, and [Check] is its
// dry run; [ResolvePayload] runs Parse and Resolve, the payload's size checked first, for
// a host that reviews before it commits. [Tool] is the "apply_patch" tool for agent
// frameworks.
//
// # Placing hunks
//
// Each hunk's context and removed lines are looked for with a ladder of comparisons, the
// strictest first: exact, ignoring trailing whitespace, ignoring surrounding whitespace,
// and also folding typographic punctuation (dashes, curly quotes, the ellipsis and exotic
// spaces as ASCII). Every rung must find exactly one place; several are narrowed only by
// the order of the hunks (a hunk's change comes after the one before it changes, though
// the two may share context lines), an "@@ TEXT" anchor above the hunk, and an "@@ N"
// line hint, never by taking the first. An anchor that names one line opening a body (a
// class, a function, a section) keeps the hunk out of copies further down: a hunk found
// only past that body is refused when it lies in the body of a later line the anchor's
// text also names, or when the anchored body holds its lines edited since. The rung that
// matched is reported ([Row.Fuzzy], a "Fuzzy:" line of the result), and a fuzzy match
// only decides where a hunk goes: the file's own context lines are kept as they are. A hunk that cannot be placed is a [*MatchError]
// naming the file, the hunk, the reason, the candidate lines of an ambiguity, and for a
// miss the closest region of the file as a short diff.
//
// Finding candidates costs one pass over the file per rung used, whatever the number of
// hunks: the file's lines are looked up in a table of the lines the hunks name.
//
// # Text
//
// Every kept line keeps its own terminator (LF, CRLF or a lone CR); inserted lines take
// the file's first one. A UTF-8 or UTF-16 byte-order mark is kept, and an encoding the
// host declares ([Options].Encoding) is decoded and re-encoded; bytes that do not
// round-trip are refused, never rewritten lossily. Binary files are refused.
//
// # Safety
//
// Paths are resolved against the workspace following symbolic links and classified as
// workspace, outside, protected (.git/) or forbidden (credential paths), by the same
// resolver before review and again at each write ([Classify] gives the classes before a
// call). Protected and forbidden patterns (.git/ and the credential locations by default,
// and the host's own through [Options]) match the whole resolved path, compared as a
// case-folding filesystem compares names. A path with a control character or invalid
// UTF-8 is refused. Errors and results never name a host path the payload did not, show
// unusual paths quoted, and stay short whatever the payload: a few candidates, then
// "and N more". With
// [Options].WorkspaceFs set to an os.Root-backed filesystem (package fs/rootfs), a link
// swapped between the last check and a write cannot lead it out of the workspace.
//
// # Errors
//
// Errors are types for [errors.As]: [*ParseError], [*MatchError], [*FileError],
// [*ConflictError] and [*IncompleteRollbackError]; a review refuses a request with a
// [*ReviewError]. Those with a Reason also match [errors.Is] by reason, as
// errors.Is(err, &FileError{Reason: FileMissing}) does. A payload with several failing
// operations gets one error that joins them, as [errors.Join] does, so a model can fix
// them all in one retry. A [*ConflictError] means nothing was written and the proposal
// still works: deselect the paths in the way and submit again. Each message says what to
// do next.
//
// # Pausing a review
//
// A Reviewer that cannot finish now (a person who will answer tomorrow, a web round trip)
// saves the review and ends it; the host resumes it later, in this process or another:
//
//	data, err := s.Save(applypatch.SaveOptions{}) // inside the Reviewer, while the review is open
//	s.Abort()                                     // the first Review call returns ErrAborted
//	...
//	s, err := applypatch.RestoreSession(ctx, fsys, data, opts) // every baseline checked again
//	res, err := s.Run(ctx, reviewer)                           // or s.Submit(ctx) to apply as staged
//
// # Concurrency
//
// Parse, Resolve and Format are safe for concurrent use. A [*Session] may be driven from
// several goroutines. Commits on one filesystem are serialised; hosts must not change the
// same files concurrently through other means during a commit (a change is detected and
// left alone, but not prevented).
//
// On a filesystem known to be safe for concurrent use (the operating system's, afero's
// in-memory one, fs/rootfs), a call that reads or writes many files uses a second
// goroutine for part of the file-system work: a resolve reads the next files while it
// places hunks in the ones before, a commit writes temporary files ahead of its steps.
// Every check and every step's effect stays in payload order on the calling goroutine,
// and no goroutine outlives the call. A host whose options ask before each step (an
// owner predicate, an editor's buffers) has no file written ahead of its answer. Any
// other afero.Fs, a host's own wrapper included, is used from the calling goroutine alone.
//
// # Non-goals
//
// The package applies the patches coding agents write, and deliberately does no more:
//
//   - It is not a unified-diff applier or a replacement for git apply or patch. It reads
//     the "*** Begin Patch" envelope, and through [Tool.CallResponses] the single
//     operations of the Responses API's apply_patch_call; a unified-diff
//     "@@ -12,5 +12,6 @@" header is read only as a line hint and an anchor inside that
//     format. Git's headers, binary patches, mode changes, copies and new symbolic links
//     cannot be expressed.
//   - It does not guess. A hunk is placed by its lines, never by line numbers alone or by
//     taking the first of several matches, and a hunk whose lines are not found on any rung
//     of the ladder is refused; the closest region is shown, not used.
//   - It does not merge. A file that changed after its baseline was captured is a
//     conflict that writes nothing; there is no three-way merge.
//   - It does not patch binary files or files larger than [Limits].FileBytes; both are
//     refused.
//
// # Caveats
//
// The workspace lock excludes only those who take it: this package's commits and
// recoveries, in this process or another. An editor, a formatter or a checkout writing
// the same files is not held back. The check of each baseline just before its write
// detects most such writes (the commit then rolls back with a [*ConflictError]), but not
// one that lands between that check and the write it guards.
//
// afero has no openat, so on a plain [afero.Fs] the workspace fence is check-then-use:
// each path is resolved and classified, then opened by name, and a concurrent local
// process that swaps a directory for a symbolic link in between can redirect the write.
// On an operating-system workspace, [Options].WorkspaceFs set to an fs/rootfs filesystem
// closes that window: every read and write inside the workspace goes through an
// [os.Root], which resolves each name one component at a time from an open directory and
// refuses one that leaves it. Paths outside the workspace, which need authority first,
// are still read and written through the Fs given.
//
// Atomicity and durability are the filesystem's. A file is replaced by renaming a
// temporary file over it, which local POSIX filesystems do atomically; a network
// filesystem such as NFS may not make the rename atomic for other clients, honour fsync,
// or carry the workspace's flock between machines. The journal is always synced before
// the first write, but the written files are not unless [Options].Sync is set: a process
// killed midway leaves a tree that recovery puts back, while a machine that loses power
// soon after a commit may come back with that commit undone by recovery, or with a file
// it wrote empty where the filesystem does not order data before a rename.
//
// A replaced file is a new file that gets the old one's owner, group and mode: other hard
// links to the old file keep the old bytes, and its extended attributes (a POSIX ACL
// among them) are not carried over.
//
// Journals are sealed with a key, and only a journal sealed with the key in use is
// recovered. Unless the host passes [Options].JournalKey, the key for a filesystem other
// than [afero.MemMapFs] is the user's, kept in $XDG_STATE_HOME/applypatch/ and created
// there by the first call that looks for a journal, a dry run included: a file written
// outside the workspace. A journal sealed with another key (another user's, another
// XDG_STATE_HOME's, a container's) is reported and left, and does not block later
// commits, so the files its commit had written stay as it left them until it is recovered
// with its own key. An [afero.MemMapFs], directly or under wrappers that name it with
// Unwrap, gets a key of the process instead; a host's own in-memory filesystem is taken
// to be durable and gets the user's key.
//
// A saved review is not sealed. [RestoreSession] checks it against the workspace (each
// path's class, each baseline's hash, where each hunk's old lines lie), not against
// tampering: its added lines and revised content are taken as saved. A host that lets the
// saved form out of its hands authenticates it itself. A saved review of an [Undo] or a
// [Redo] restores as the patch of its hunks: it commits by the ordinary rules, not byte
// for byte, and the history does not mark the change undone; review an undo within one
// session, or ask for it again.
//
// A [UserHistory] is named for the workspace's real path and its directory's device and
// inode. A tree deleted and made again at the same path may be given the old directory's
// inode, and then inherits its history; an undo still acts only on files that hold what
// the recorded change left. Undo writes back files, not directories: a directory an Add
// created stays, empty, after its undo. An undo interrupted between its commit and the
// history's mark leaves the change listed as not undone; the next undo finds every file
// already as it would leave it, writes nothing and marks the change undone. A baseline the
// history keeps as the file it was (see [History]) changes if a program that held that
// file open writes to it after the commit; its checksum then no longer matches, and an
// undo that needs it is refused for that path rather than restoring other bytes.
package applypatch
