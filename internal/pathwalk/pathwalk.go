// Package pathwalk finds where a path really lands on an afero filesystem: it follows
// symbolic links component by component, the way the operating system does.
package pathwalk

import (
	"errors"
	"fmt"
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
var ErrLinkLoop = fmt.Errorf("too many levels of symbolic links (a link loop, or a chain of more than %d links); "+
	"fix or remove the link, or name the file by its real path", MaxLinks)

// A Resolver follows symbolic links on an afero filesystem, component by component, the
// way the operating system does, but itself: afero has no openat or O_NOFOLLOW, so the
// only way to know where a name really lands is to walk it with Lstat and Readlink.
// A filesystem without afero's Lstater has no links to follow (MemMapFs reports Stat
// through LstatIfPossible, with false).
type Resolver struct {
	lstat    afero.Lstater
	readlink afero.LinkReader
	// memo, while set (see Remember), keeps what each name was found to be, so that the
	// paths of one payload that share deep parents look each parent up once.
	memo map[string]linkInfo
	// lookups counts the names looked up on the filesystem (see Lookups).
	lookups int
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
	r := &Resolver{}
	r.lstat, _ = fsys.(afero.Lstater)
	r.readlink, _ = fsys.(afero.LinkReader)
	return r
}

// Remember makes r keep what it finds for each name until the returned function is
// called, so that paths sharing deep parents look each parent up once. Keep it only for
// the length of one check: a later check must see the tree afresh.
func (r *Resolver) Remember() (forget func()) {
	r.memo = map[string]linkInfo{}
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
func (r *Resolver) Resolve(dir, name string) (Resolution, error) {
	cur, rest := start(dir, name)
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
			cur, res.Info = parent(cur), nil
			continue
		case len(absent) > 0:
			absent = append(absent, comp)
			continue
		}
		next := child(cur, comp)
		info, err := r.lookup(next)
		if err != nil {
			return Resolution{}, err
		}
		if info.missing {
			absent, res.Info = append(absent, comp), nil
			continue
		}
		if !info.isLink {
			cur, res.Info = next, info.info
			continue
		}
		if hops++; hops > MaxLinks {
			return Resolution{}, ErrLinkLoop
		}
		res.Linked, res.Info = true, nil
		var head []string
		cur, head = start(cur, info.target)
		rest = append(head, rest...)
	}
	res.Name = filepath.Join(append([]string{cur}, absent...)...)
	return res, nil
}

// child is filepath.Join(dir, comp) for a clean dir and a component with no separator,
// without cleaning the whole name again at each level of a deep path.
func child(dir, comp string) string {
	if dir == "" || dir == "." {
		return comp
	}
	if os.IsPathSeparator(dir[len(dir)-1]) {
		return dir + comp
	}
	return dir + string(filepath.Separator) + comp
}

// lookup is link, answered from the memo while one is kept.
func (r *Resolver) lookup(name string) (linkInfo, error) {
	if info, ok := r.memo[name]; ok {
		return info, nil
	}
	r.lookups++
	target, isLink, missing, fi, err := r.link(name)
	if err != nil {
		return linkInfo{}, err
	}
	info := linkInfo{target: target, isLink: isLink, missing: missing, info: fi}
	if r.memo != nil {
		r.memo[name] = info
	}
	return info, nil
}

// link reports whether name is a symbolic link and, if so, its target as stored, or
// whether it does not exist, and returns its Lstat when it exists. A name whose parent is
// not a directory does not exist.
func (r *Resolver) link(name string) (target string, isLink, missing bool, fi fs.FileInfo, err error) {
	if r.lstat == nil {
		return "", false, false, nil, nil
	}
	fi, _, err = r.lstat.LstatIfPossible(name)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "", false, true, nil, nil
	case err != nil:
		return "", false, false, nil, err
	case fi.Mode()&fs.ModeSymlink == 0:
		return "", false, false, fi, nil
	case r.readlink == nil:
		return "", false, false, nil, &fs.PathError{Op: "readlink", Path: name, Err: afero.ErrNoReadlink}
	}
	target, err = r.readlink.ReadlinkIfPossible(name)
	if err != nil {
		return "", false, false, nil, err
	}
	if target == "" {
		return "", false, false, nil, &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return target, true, false, fi, nil
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
