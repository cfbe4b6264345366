package pathwalk

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// anchorEvery is how many components below an open directory a name the kernel looks up
// may have. The kernel walks every component of a name it is given, so looking each
// component of a path n levels deep up by its full name costs it n²/2 steps; a walk that
// opens the directory it has reached every anchorEvery levels and looks names up from
// there costs it at most anchorEvery steps a lookup. Paths of fewer components than this,
// which are nearly all paths, are looked up by their full names as before, so they cost
// no extra system call.
const anchorEvery = 16

// dirLookup looks names up relative to directories held open (see walk.anchor).
type dirLookup interface {
	// openDir opens the directory name, relative to at, without following a final
	// link, to look names up from.
	openDir(at int, name string) (int, error)
	// lstatAt is Lstat of name relative to at; its error is a bare error number.
	lstatAt(at int, name string) (fs.FileInfo, error)
	closeDir(fd int)
}

// atCwd makes openDir take a name as any system call does: from the working directory,
// or from the root for an absolute name.
const atCwd = -100 // AT_FDCWD

// noFd marks a frame (or the base) not opened as an anchor.
const noFd = -1

// A walk is where one Resolve has got to: cur, the directory reached so far, free of
// links, as its base (where the walk started, or the root an absolute link led to) and
// one frame per component below it. The name is built in place, so reaching a directory n
// levels deep copies n components, not n names.
//
// Where the filesystem is the operating system's, some frames hold their directory open
// (anchors), and a name is looked up relative to the deepest anchor. An anchor is opened
// relative to the anchor above it, without following a final link, once the name below
// that anchor has anchorEvery components. It changes nothing the walk finds: cur is free of
// links when each of its components is reached, so its name and the anchor lead to the
// same directory, except that an anchor stays that directory if a parent is renamed or
// swapped for a link during the walk, where the full name would follow the change. Either
// way the caller checks again, just before it writes, where the path leads.
type walk struct {
	r         *Resolver
	base      string
	baseID    int // the base's node in the memo
	baseComps int // the base's components, which a full name passes through too
	baseFd    int
	name      []byte // cur's name; empty for the base "."
	frames    []frame
	anchors   []int // the frames held open, deepest last; -1 is the base
}

// A frame is one component of cur below the walk's base.
type frame struct {
	end int // the length of the walk's name with this component
	id  int // the directory's node in the memo
	fd  int // the directory, held open as an anchor, or noFd
}

func (r *Resolver) newWalk(base string) *walk {
	w := &walk{r: r, baseFd: noFd}
	w.reset(base)
	return w
}

// reset starts the walk again from base, closing every anchor.
func (w *walk) reset(base string) {
	w.close()
	w.base, w.frames, w.anchors = base, w.frames[:0], w.anchors[:0]
	w.name = w.name[:0]
	if base != "." {
		w.name = append(w.name, base...)
	}
	w.baseComps = len(strings.FieldsFunc(base, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) }))
	w.baseID = w.r.memo.baseID(base)
}

// close closes every anchor the walk holds.
func (w *walk) close() {
	for _, a := range w.anchors {
		w.r.dirs.closeDir(w.fdOf(a))
	}
	for i := range w.frames {
		w.frames[i].fd = noFd
	}
	w.baseFd, w.anchors = noFd, w.anchors[:0]
}

// cur is the name of the directory the walk has reached.
func (w *walk) cur() string {
	if len(w.name) == 0 {
		return "."
	}
	return string(w.name)
}

// child is the full name of comp inside cur, as filepath.Join would write it.
func (w *walk) child(comp string) string {
	switch {
	case len(w.name) == 0:
		return comp
	case os.IsPathSeparator(w.name[len(w.name)-1]):
		return string(w.name) + comp
	}
	return string(w.name) + string(filepath.Separator) + comp
}

// down moves the walk into comp, a directory (or a file, below which nothing exists)
// inside cur that is not a link.
func (w *walk) down(comp string, id int) {
	if len(w.name) > 0 && !os.IsPathSeparator(w.name[len(w.name)-1]) {
		w.name = append(w.name, filepath.Separator)
	}
	w.name = append(w.name, comp...)
	w.frames = append(w.frames, frame{end: len(w.name), id: id, fd: noFd})
}

// up moves the walk to cur's parent; above its base, the base's parent is a new base.
func (w *walk) up() {
	top := len(w.frames) - 1
	if top < 0 {
		w.reset(parent(w.base))
		return
	}
	if fd := w.frames[top].fd; fd != noFd {
		w.r.dirs.closeDir(fd)
		w.anchors = w.anchors[:len(w.anchors)-1]
	}
	w.frames = w.frames[:top]
	w.name = w.name[:w.endOf(top-1)]
}

// id is cur's node in the memo.
func (w *walk) id() int {
	if n := len(w.frames); n > 0 {
		return w.frames[n-1].id
	}
	return w.baseID
}

// lookup finds what comp inside cur is, from the memo while one is kept, and returns
// its node there.
func (w *walk) lookup(comp string) (linkInfo, int, error) {
	key := memoKey{w.id(), comp}
	if e, ok := w.r.memo.get(key); ok {
		return e.info, e.id, nil
	}
	w.r.lookups++
	info, err := w.find(comp)
	if err != nil {
		return linkInfo{}, 0, err
	}
	return info, w.r.memo.put(key, info), nil
}

// find asks the filesystem what comp inside cur is: relative to the deepest anchor
// where there is one, else by its full name.
func (w *walk) find(comp string) (linkInfo, error) {
	at, rel, ok := w.anchor()
	if !ok {
		return w.r.link(w.child(comp))
	}
	name := comp
	if rel != "" {
		name = rel + string(filepath.Separator) + comp
	}
	fi, err := w.r.dirs.lstatAt(at, name)
	return w.r.found(fi, err, func() string { return w.child(comp) })
}

// anchor returns the directory the next lookup is made from and cur's name below it,
// first opening cur itself when that name, or cur's full name where no anchor is open,
// has anchorEvery components. It reports false where no directory is open: a filesystem
// not the operating system's, a shallow path, or a directory that could not be opened
// (the lookup then uses the longer name, which finds the same).
func (w *walk) anchor() (at int, rel string, ok bool) {
	if w.r.dirs == nil {
		return 0, "", false
	}
	top, a := len(w.frames)-1, -2 // -2: none open
	depth := w.baseComps + len(w.frames)
	if n := len(w.anchors); n > 0 {
		a = w.anchors[n-1]
		depth = top - a
	}
	if depth >= w.r.every {
		w.open(a, top)
	}
	if len(w.anchors) == 0 {
		return 0, "", false
	}
	a = w.anchors[len(w.anchors)-1]
	return w.fdOf(a), w.below(a), true
}

// open opens cur, frame top (-1: the base), as an anchor: relative to anchor a, or by
// its full name when a is -2.
func (w *walk) open(a, top int) {
	var fd int
	var err error
	if a == -2 {
		fd, err = w.r.dirs.openDir(atCwd, w.cur())
	} else {
		fd, err = w.r.dirs.openDir(w.fdOf(a), w.below(a))
	}
	if err != nil {
		return
	}
	if top < 0 {
		w.baseFd = fd
	} else {
		w.frames[top].fd = fd
	}
	w.anchors = append(w.anchors, top)
}

// fdOf is anchor a's descriptor.
func (w *walk) fdOf(a int) int {
	if a < 0 {
		return w.baseFd
	}
	return w.frames[a].fd
}

// endOf is the length of the walk's name up to frame i (-1: the base).
func (w *walk) endOf(i int) int {
	switch {
	case i >= 0:
		return w.frames[i].end
	case w.base == ".":
		return 0
	}
	return len(w.base)
}

// below is cur's name relative to frame i (-1: the base), "" for that frame itself.
func (w *walk) below(i int) string {
	start := w.endOf(i)
	if start > 0 && !os.IsPathSeparator(w.name[start-1]) {
		start++
	}
	if start >= len(w.name) {
		return ""
	}
	return string(w.name[start:])
}
