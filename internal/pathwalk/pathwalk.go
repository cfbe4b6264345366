// Package pathwalk finds where a path really lands on an afero filesystem: it follows
// symbolic links component by component, the way the operating system does.
package pathwalk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/afero"
)

// MaxLinks is the most symbolic links one path may pass through while it is resolved,
// as in Linux's MAXSYMLINKS. A longer chain, or a loop, is [ErrLinkLoop].
const MaxLinks = 40

// ErrLinkLoop is the cause of a path that passes through more than [MaxLinks] symbolic
// links: a link loop, or a chain too long to follow.
var ErrLinkLoop = errors.New("too many levels of symbolic links (a link loop, or a chain of more than " + maxLinksText +
	" links); fix or remove the link, or name the file by its real path")

// maxLinksText is MaxLinks in decimal, a constant so that ErrLinkLoop costs nothing to
// make as the package starts.
const maxLinksText = "40"

// A Resolver follows symbolic links on an afero filesystem, component by component, the
// way the operating system does, but itself: afero has no openat or O_NOFOLLOW, so the
// only way to know where a name really lands is to walk it with Lstat and Readlink.
// A filesystem without afero's Lstater has no links to follow (MemMapFs reports Stat
// through LstatIfPossible, with false).
type Resolver struct {
	lstat    afero.Lstater
	readlink afero.LinkReader
	// dirs, where the filesystem is the operating system's, looks names up relative to
	// directories the walk holds open (see walk.anchor); nil elsewhere.
	dirs dirLookup
	// every is how many components a name looked up through dirs may have below the
	// directory it is looked up from (anchorEvery; tests make it smaller).
	every int
	// memo, while set (see Remember), keeps what each name was found to be, so that the
	// paths of one payload that share deep parents look each parent up once.
	memo *memo
	// lookups counts the names looked up on the filesystem (see Lookups).
	lookups int
	// lexical is set for a filesystem that cannot hold links (see resolveLexically).
	lexical bool
}

// linkInfo is what link found for a name; info is its Lstat, when it exists.
type linkInfo struct {
	target  string
	isLink  bool
	missing bool
	info    fs.FileInfo
}

// New returns a Resolver for the links of fsys.
func New(fsys afero.Fs) *Resolver {
	_, inMemory := fsys.(*afero.MemMapFs)
	r := &Resolver{dirs: osDirsFor(fsys), every: anchorEvery, lexical: inMemory}
	r.lstat, _ = fsys.(afero.Lstater)
	r.readlink, _ = fsys.(afero.LinkReader)
	return r
}

// Remember makes r keep what it finds for each name until the returned function is
// called, so that paths sharing deep parents look each parent up once. Keep it only for
// the length of one check: a later check must see the tree afresh.
func (r *Resolver) Remember() (forget func()) {
	r.memo = newMemo()
	return func() { r.memo = nil }
}

// Lookups returns how many names r has looked up on the filesystem, so that tests can
// bound the work.
func (r *Resolver) Lookups() int { return r.lookups }

// A Resolution is where a name lands.
type Resolution struct {
	// Name is the final name, free of symbolic links in every component that exists.
	Name string
	// Linked is set when a link was followed on the way.
	Linked bool
	// Info is what the final name's lookup found when it exists and is not a link (so
	// the same as a Stat of it), else nil.
	Info fs.FileInfo
}

// Resolve follows name, absolute or relative to dir (itself free of links), to its final
// target. Every component is checked: a link in a parent directory is followed as well as
// a final one, a relative link target is read relative to the link's directory and an
// absolute one from the filesystem's root, ".." climbs from where the walk has really got
// to, and a link to a path that does not exist yet (dangling) resolves to that path.
// Components that do not exist cannot be links and are taken as written. A returned error
// may carry the name of an intermediate component: callers sanitise it.
//
// Each component costs the same whatever its depth (see walk), so a path n directories
// deep costs n lookups, not n².
func (r *Resolver) Resolve(dir, name string) (Resolution, error) {
	if r.lexical {
		return r.resolveLexically(dir, name)
	}
	base, rest := start(dir, name)
	w := r.newWalk(base)
	defer w.close()
	var res Resolution
	// Below a component that does not exist nothing exists either, so such components
	// are only collected (in absent) and joined once at the end: a new path 2,000
	// directories deep costs one lookup per existing parent, not one per component.
	var absent []string
	for hops := 0; len(rest) > 0; {
		comp := rest[0]
		rest = rest[1:]
		switch {
		case comp == ".":
			continue
		case comp == ".." && len(absent) > 0:
			absent = absent[:len(absent)-1]
			continue
		case comp == "..":
			w.up()
			res.Info = nil
			continue
		case len(absent) > 0:
			absent = append(absent, comp)
			continue
		}
		info, id, err := w.lookup(comp)
		if err != nil {
			return Resolution{}, err
		}
		if info.missing {
			absent, res.Info = append(absent, comp), nil
			continue
		}
		if !info.isLink {
			w.down(comp, id)
			res.Info = info.info
			continue
		}
		if hops++; hops > MaxLinks {
			return Resolution{}, ErrLinkLoop
		}
		res.Linked, res.Info = true, nil
		from, head := start(w.cur(), info.target)
		if Rooted(info.target) {
			w.reset(from)
		}
		rest = append(head, rest...)
	}
	res.Name = filepath.Join(append([]string{w.cur()}, absent...)...)
	return res, nil
}

// resolveLexically is Resolve on a filesystem that cannot hold links (afero's in-memory
// one): with no link to follow, the walk would end at the name as written, cleaned, so
// only the final name is looked up, for Info. afero names every file by its whole path,
// so a walk that looked each component up would cost n² for a path n levels deep.
func (r *Resolver) resolveLexically(dir, name string) (Resolution, error) {
	base, rest := start(dir, name)
	res := Resolution{Name: filepath.Join(append([]string{base}, rest...)...)}
	last := len(rest) - 1
	for last >= 0 && rest[last] == "." {
		last--
	}
	if last < 0 || rest[last] == ".." {
		return res, nil // the walk's last step climbed, or took none: it has no lookup to show
	}
	r.lookups++
	info, err := r.link(res.Name)
	if err != nil {
		return Resolution{}, err
	}
	res.Info = info.info
	return res, nil
}

// link reports whether name is a symbolic link and, if so, its target as stored, or
// whether it does not exist, and returns its Lstat when it exists.
func (r *Resolver) link(name string) (linkInfo, error) {
	if r.lstat == nil {
		return linkInfo{}, nil
	}
	fi, _, err := r.lstat.LstatIfPossible(name)
	return r.found(fi, err, func() string { return name })
}

// found turns one Lstat's result into what the walk needs; name gives the full name
// looked up, for a link's target and for errors. A name whose parent is not a directory
// does not exist.
func (r *Resolver) found(fi fs.FileInfo, err error, name func() string) (linkInfo, error) {
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return linkInfo{missing: true}, nil
	case err != nil:
		return linkInfo{}, asPathError(err, "lstat", name)
	case fi.Mode()&fs.ModeSymlink == 0:
		return linkInfo{info: fi}, nil
	case r.readlink == nil:
		return linkInfo{}, &fs.PathError{Op: "readlink", Path: name(), Err: afero.ErrNoReadlink}
	}
	target, err := r.readlink.ReadlinkIfPossible(name())
	if err != nil {
		return linkInfo{}, err
	}
	if target == "" {
		return linkInfo{}, &fs.PathError{Op: "readlink", Path: name(), Err: fs.ErrInvalid}
	}
	return linkInfo{target: target, isLink: true, info: fi}, nil
}

// asPathError gives a bare error number from a lookup relative to a directory the form
// an Lstat of the full name gives it.
func asPathError(err error, op string, name func() string) error {
	if errno, ok := err.(syscall.Errno); ok {
		return &fs.PathError{Op: op, Path: name(), Err: errno}
	}
	return err
}

// start splits name into the directory a walk starts from and the components to walk:
// dir for a relative name, the filesystem root (of name's volume) for an absolute one.
func start(dir, name string) (string, []string) {
	comps := strings.FieldsFunc(name[len(filepath.VolumeName(name)):], func(r rune) bool {
		return r < 0x80 && os.IsPathSeparator(uint8(r))
	})
	if Rooted(name) {
		return filepath.VolumeName(name) + string(filepath.Separator), comps
	}
	return dir, comps
}

// Rooted reports whether name starts from a filesystem root: it is absolute, or (on
// Windows) starts with a separator.
func Rooted(name string) bool {
	v := filepath.VolumeName(name)
	return filepath.IsAbs(name) || (len(name) > len(v) && os.IsPathSeparator(name[len(v)]))
}

// parent is the directory above dir. The root is its own parent; above a relative
// directory's top the walk keeps its ".." components, so containment is still judged right.
func parent(dir string) string {
	if dir == "." || filepath.Base(dir) == ".." {
		return filepath.Join(dir, "..")
	}
	return filepath.Dir(dir)
}
