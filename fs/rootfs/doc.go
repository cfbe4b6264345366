// Package rootfs provides an [afero.Fs] whose every operation is confined
// to one directory by Go's [os.Root].
//
// # Why
//
// A patch library writes a model's edits inside a workspace directory and
// must not write anywhere else, whatever paths the patch names and whatever
// symbolic links the workspace contains. afero's BasePathFs looks like such
// a fence but is not one:
//
//   - it checks containment lexically with a string prefix, so with base
//     /w/proj the name ../proj-sibling/x is let through to
//     /w/proj-sibling/x (afero issue #513);
//   - it joins names onto the base and hands the result to the operating
//     system, which follows any symbolic link on the way, so a link inside
//     the base that points outside it carries reads and writes out of the
//     base;
//   - it rewrites symbolic link targets into absolute host paths, so
//     ReadlinkIfPossible returns text the link was never given and error
//     messages disclose the host directory (afero issue #282).
//
// Any check-then-act scheme in user space (resolve, verify, then open) also
// loses a race against a concurrent rename that swaps a directory for a
// symbolic link between the check and the write (TOCTOU).
//
// # Guarantee
//
// [Fs] delegates every operation to an [os.Root]. On Linux, macOS and other
// Unix systems the Root holds a descriptor for the directory and resolves a
// name one component at a time relative to it (openat with O_NOFOLLOW,
// reading each symbolic link itself); on Windows it does the same with
// directory handles. A name that leaves the directory, lexically (../x) or
// through a symbolic link (relative or absolute, dangling or not), fails
// with the error os.Root returns, which reads "path escapes from parent";
// [IsEscape] reports it. Because the check and the use happen on the same
// descriptors, swapping a directory for a link to the outside between a
// caller's check and its write cannot redirect the write out of the
// directory. If the directory itself is moved, the Fs follows it.
//
// # Names
//
// The Fs accepts names in these forms, all interpreted relative to the root
// directory and cleaned with [path/filepath.Clean]:
//
//   - relative names: a/b.txt, ./a/b.txt, a/../b.txt;
//   - slash-rooted names: /a/b.txt names the same file as a/b.txt, so code
//     that joins names onto a workspace of "/" works unchanged. Cleaning a
//     slash-rooted name treats ".." at the top as the top itself, as a
//     chroot does: /../a names a;
//   - the root itself: ".", "/" (and "./", "//").
//
// A relative name that still climbs out after cleaning (../x, a/../../x)
// is refused by os.Root. The empty name is refused as [os] refuses it.
// On Windows, names with a volume or UNC prefix (C:\x, C:x, \\host\share)
// are passed through unchanged and refused by os.Root, as are reserved
// device names such as NUL and COM1.
//
// Errors are the *[os.PathError] or *[os.LinkError] values os.Root returns,
// with the Path (or Old and New) field replaced by the name exactly as the
// caller gave it, so error texts never contain the host directory and
// errors.Is on the underlying cause (os.ErrNotExist, os.ErrExist,
// os.ErrPermission, ...) keeps working. Files opened through the Fs are
// [File] values whose Name is the name the caller gave, and whose errors
// are rewritten the same way; [os.File] would report the host path.
//
// # Limits
//
// The Fs confines; it does not classify. It does not judge whether a name
// inside the root is sensitive (.git/hooks, build scripts), does not limit
// sizes, and stores symbolic link targets verbatim: [Fs.SymlinkIfPossible]
// creates a link to /etc/passwd or ../../x if asked. Such a link cannot be
// followed through the Fs, but other programs working on the directory
// without os.Root will follow it.
//
// Hard links are not prevented: a hard link that already exists inside the
// root and shares an inode with a file outside it is indistinguishable
// from an ordinary file, and writing through it changes the outside file.
// The Fs never creates hard links.
//
// Inherited from os.Root:
//
//   - On Unix, Chmod, Chown and Chtimes follow a final symbolic link and
//     are racy: if the file is replaced by a link while the call is in
//     progress, the change may apply to the link rather than its target.
//     The change still stays inside the root.
//   - Mount points, bind mounts, /proc files and device files inside the
//     root are not refused.
//   - On Windows, creating symbolic links may need a privilege or
//     Developer Mode, and reserved device names are refused.
//   - With GOOS=js the symbolic link checks are vulnerable to TOCTOU races
//     and cannot ensure confinement; with GOOS=js and GOOS=plan9 the root
//     is tracked by name rather than by descriptor; GOOS=wasip1 has no
//     Chmod.
//
// RemoveAll refuses the root itself ("." or "/") with EINVAL, as
// [os.Root.RemoveAll] does. afero.TempFile and afero.TempDir with an
// empty dir use [os.TempDir] as a name, which the Fs interprets inside the
// root (/tmp becomes the root's tmp directory); pass an explicit dir.
package rootfs
