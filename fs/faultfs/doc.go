// Package faultfs wraps an [afero.Fs] so that chosen filesystem operations
// fail on demand. Hosts use it in their own tests to prove that their
// rollback paths really restore every file; the applypatch transaction uses
// it the same way.
//
// # The k-th operation matrix
//
// The wrapper numbers the operations it counts (1, 2, 3, ...) in the order
// they start. [FailAt](k) makes exactly the k-th counted operation fail, so a
// test can run the code under test once for every k and check after each run
// that the filesystem is back at its baseline:
//
//	for k := 1; ; k++ {
//		base := newBaseline(t)
//		fsys := faultfs.New(base, faultfs.FailAt(k))
//		err := apply(fsys)
//		if k > fsys.Count() {
//			break // the run made fewer than k operations: nothing failed
//		}
//		if !errors.Is(err, faultfs.ErrInjected) {
//			t.Fatalf("k=%d: err = %v, want the injected fault", k, err)
//		}
//		checkBaseline(t, base)
//	}
//
// By default only mutating operations are counted, so k walks the steps that
// change the filesystem and the matrix stays small. [CountReads] adds the
// reading operations as well. [FailEvery] and [FailNth] select operations
// with a predicate instead of a position. Several rules may be given; an
// operation fails when any of them selects it. Rules only ever see counted
// operations.
//
// # Operations
//
// Each observed method maps to one [Op]. "Mutating" ops are counted always;
// the others only with [CountReads].
//
//	Op          methods                                       mutating
//	OpCreate    Fs.Create, Fs.OpenFile with O_CREATE          yes
//	OpOpen      Fs.Open, Fs.OpenFile without O_CREATE         if opened for writing
//	OpWrite     File.Write, WriteAt, WriteString, Truncate    yes
//	OpSync      File.Sync                                     yes (also on read-only handles, e.g. directories)
//	OpClose     File.Close                                    if opened for writing
//	OpRename    Fs.Rename, Fs.RenameNoReplace                 yes
//	OpChmod     Fs.Chmod                                      yes
//	OpChtimes   Fs.Chtimes                                    yes
//	OpChown     Fs.Chown                                      yes
//	OpRemove    Fs.Remove, Fs.RemoveAll                       yes
//	OpMkdir     Fs.Mkdir, Fs.MkdirAll                         yes
//	OpSymlink   Fs.SymlinkIfPossible                          yes
//	OpLink      Fs.Link                                       yes
//	OpStat      Fs.Stat, Fs.LstatIfPossible, File.Stat        no
//	OpRead      File.Read, ReadAt, Readdir, Readdirnames      no
//	OpReadlink  Fs.ReadlinkIfPossible                         no
//
// A file is "opened for writing" when it comes from Create, or from OpenFile
// with any of O_WRONLY, O_RDWR, O_CREATE, O_TRUNC or O_APPEND. File.Seek and
// File.Name are passed through unobserved, as is Fs.Name. An event's name is
// the path the caller passed: the old name for Rename and RenameNoReplace, the
// new link for SymlinkIfPossible and Link, and the opening path for operations
// on a file.
//
// # Failures
//
// An injected failure is an [*Error] (which wraps [ErrInjected]) inside an
// [*os.PathError], or an [*os.LinkError] for Rename, RenameNoReplace,
// SymlinkIfPossible and Link, carrying the operation name and path the os
// package would use. A failing operation returns before it reaches the wrapped
// filesystem, so the base is left exactly as it was, with one exception: a
// failing Close still closes the underlying file, so that injected faults never
// leak descriptors, and then reports the injected error (any error from the
// real Close is dropped).
//
// SymlinkIfPossible and ReadlinkIfPossible on a base that does not support
// them return [afero.ErrNoSymlink] or [afero.ErrNoReadlink] as afero's own
// wrappers do, Link on a base without hard links returns
// [errors.ErrUnsupported], and so does RenameNoReplace on a base without it;
// such calls are not counted. LstatIfPossible falls back to Stat when the base
// has no Lstat.
//
// An [Fs] is safe for concurrent use: numbering, rule state and the event
// log are guarded by a mutex, and the wrapped filesystem is called without
// holding it.
package faultfs
