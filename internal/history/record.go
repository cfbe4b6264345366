package history

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/crc32c"
)

// A Content is bytes an entry keeps: written out once, when the entry is recorded.
type Content interface {
	WriteOut(w io.Writer) error
}

// Bytes is a Content held in memory.
type Bytes []byte

// WriteOut writes the bytes to w.
func (b Bytes) WriteOut(w io.Writer) error {
	_, err := w.Write(b)
	return err
}

// text is a Content held as a string, written without a copy into bytes first.
type text string

// WriteOut writes the text to w.
func (t text) WriteOut(w io.Writer) error {
	_, err := io.WriteString(w, string(t))
	return err
}

// Kept is a Content already in the entry's kept directory (the directory a commit moved
// into EntriesDir as KeptName), as the file of that name: the entry records its length
// and CRC-32C and writes nothing.
type Kept struct {
	File string
	Len  int64
	CRC  uint32
}

// WriteOut writes nothing: the content is in place.
func (Kept) WriteOut(io.Writer) error { return nil }

// EntriesDir opens the directory the store keeps its entries in, making it where it is
// missing, for a commit to move the directory of its baselines' backups into as an
// entry's kept directory (see KeptName). It refuses a store that is not on the
// operating system's filesystem, where no such move can be made.
func (s *Store) EntriesDir() (*os.File, error) { return s.moveTarget(s.entries()) }

// moveTarget opens dir, one of the store's directories, making it where it is missing,
// for a commit to move a directory into: only a store on the operating system's
// filesystem can be moved into.
func (s *Store) moveTarget(dir string) (*os.File, error) {
	if _, ok := s.fs.(*afero.OsFs); !ok {
		return nil, errors.ErrUnsupported
	}
	if err := EnsureDir(s.fs, dir); err != nil {
		return nil, err
	}
	return os.OpenFile(dir, openDir, 0)
}

// Discard removes the kept directory of an entry that was not recorded.
func (s *Store) Discard(id string, size int64) {
	if validID(id) {
		s.fs.RemoveAll(s.keptDir(id, size))
	}
}

// Record adds an entry whose states name contents by index: it takes the next sequence
// number, drops the entries that could be redone (a new commit starts a new line of
// history), writes the entry file whole (a temporary file renamed into place) and prunes
// the oldest entries past the limits, never the new one.
func (s *Store) Record(e *Entry, contents []Content) error {
	for _, dir := range []string{s.entries(), s.undone()} {
		if err := EnsureDir(s.fs, dir); err != nil {
			return fmt.Errorf("the history cannot be created: %w", pathless(err))
		}
	}
	defer serialise(s.dir)()
	list, orphans, err := s.listing()
	if err != nil {
		return err
	}
	for _, o := range orphans {
		if o.ID != e.ID && s.stale(o.kept) {
			s.fs.RemoveAll(o.kept) // kept by a commit whose entry a crash cut off
		}
	}
	if list, err = s.dropUndone(list); err != nil {
		return err
	}
	e.Seq = 1
	if len(list) > 0 {
		e.Seq = list[len(list)-1].Seq + 1
	}
	if !validID(e.ID) {
		return fmt.Errorf("history: the entry id %q is not lowercase hex", e.ID)
	}
	e.PayloadBlob = len(contents)
	contents = append(contents, text(e.Payload))
	file, size, err := s.write(e, contents)
	if err != nil {
		return err
	}
	e.file, e.size = file, size
	n := name{Seq: e.Seq, ID: e.ID, file: file, size: size}
	if e.Kept > 0 {
		n.kept, n.size = s.keptDir(e.ID, e.Kept), size+e.Kept
	}
	return s.prune(append(list, n))
}

// write writes the entry file: the magic line, the contents, the entry's JSON and the
// trailer, to a temporary file renamed, once complete, to the entry's name with its size.
func (s *Store) write(e *Entry, contents []Content) (name string, size int64, err error) {
	tmp := path.Join(s.entries(), fmt.Sprintf("%010d-%s.entry.tmp-%s", e.Seq, e.ID, strconv.FormatInt(time.Now().UnixNano(), 36)))
	f, err := s.fs.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", 0, fmt.Errorf("the history cannot be written: %w", pathless(err))
	}
	size, err = writeEntry(f, e, contents, s.mac)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		name = path.Join(s.entries(), fileName(e, size))
		err = s.fs.Rename(tmp, name)
	}
	if err != nil {
		s.fs.Remove(tmp)
		return "", 0, fmt.Errorf("the history cannot be written: %w", pathless(err))
	}
	return name, size, nil
}

// counter sums what passes through it to w.
type counter struct {
	w io.Writer
	crc32c.Sum
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.Sum.Write(p[:n])
	return n, err
}

// WriteString is Write for a string, summed where it lies rather than copied first.
func (c *counter) WriteString(s string) (int, error) {
	n, err := io.WriteString(c.w, s)
	c.Sum.Write(unsafe.Slice(unsafe.StringData(s), n)) // read, never written
	return n, err
}

// writeEntry writes the entry file's bytes to w and returns how many it wrote.
func writeEntry(w io.Writer, e *Entry, contents []Content, mac func([]byte) []byte) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString(entryMagic); err != nil {
		return 0, err
	}
	e.Blobs = make([]Blob, len(contents))
	var off int64
	for i, c := range contents {
		if k, ok := c.(Kept); ok {
			e.Blobs[i] = Blob{Len: k.Len, CRC: k.CRC, File: k.File}
			continue
		}
		cw := &counter{w: bw}
		if err := c.WriteOut(cw); err != nil {
			return 0, err
		}
		e.Blobs[i] = Blob{Off: off, Len: cw.N, CRC: cw.CRC}
		off += cw.N
	}
	e.sumHeld()
	body, err := appendEntry(make([]byte, 0, entrySize(e)), e)
	if err != nil {
		return 0, err
	}
	start := int64(len(entryMagic)) + off
	bw.Write(body)
	trailer := fmt.Sprintf("\n%s %d %d\n", hex.EncodeToString(mac(body)), start, len(body))
	bw.WriteString(trailer)
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return start + int64(len(body)+len(trailer)), nil
}

// sumHeld gives every state held whole the CRC of its content, just summed as it was
// written, so the recording need not sum it first.
func (e *Entry) sumHeld() {
	for i := range e.Files {
		for _, st := range []*State{&e.Files[i].Before, &e.Files[i].After} {
			if st.Exists && st.Blob >= 0 && st.Blob < len(e.Blobs) {
				st.CRC = e.Blobs[st.Blob].CRC
			}
		}
	}
}

// A name is an entry file found in the store, before it is read, with its kept
// directory, if it has one; size counts both.
type name struct {
	Seq    int
	ID     string
	file   string
	kept   string
	size   int64
	undone bool
}

// names lists the store's entry files by name, oldest first, with their undone marks,
// reading none of them; a temporary file a crash left is removed.
func (s *Store) names() ([]name, error) {
	list, _, err := s.listing()
	return list, err
}

// listing is names, and the kept directories no entry file names (orphans, by ID and
// kept).
func (s *Store) listing() ([]name, []name, error) {
	infos, err := dirEntries(s.fs, s.entries())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the history cannot be read: %w", pathless(err))
	}
	kept := map[string]name{}
	for _, fi := range infos {
		if id, size, ok := keptName(fi.Name()); ok && fi.IsDir() {
			kept[id] = name{ID: id, kept: path.Join(s.entries(), fi.Name()), size: size}
		}
	}
	marks := map[string]bool{}
	if undone, err := dirEntries(s.fs, s.undone()); err == nil {
		for _, fi := range undone {
			marks[fi.Name()] = fi.Type().IsRegular()
		}
	}
	var out []name
	for _, fi := range infos {
		seq, id, size, ok := entryName(fi.Name())
		if !ok {
			if tmp := path.Join(s.entries(), fi.Name()); strings.Contains(fi.Name(), ".entry.tmp-") && fi.Type().IsRegular() && s.stale(tmp) {
				s.fs.Remove(tmp) // an entry a crash cut short
			}
			continue
		}
		if !fi.Type().IsRegular() || seq == 0 {
			continue
		}
		if size < 0 { // named before names carried the size
			info, err := fi.Info()
			if err != nil {
				continue
			}
			size = info.Size()
		}
		n := name{Seq: seq, ID: id, file: path.Join(s.entries(), fi.Name()), size: size, undone: marks[id]}
		if k, ok := kept[n.ID]; ok {
			n.kept, n.size = k.kept, n.size+k.size
			delete(kept, n.ID)
		}
		out = append(out, n)
	}
	var orphans []name
	for _, k := range kept {
		orphans = append(orphans, k)
	}
	return out, orphans, nil // ReadDir sorts by name, and names sort by sequence
}

// staleAfter is how long a temporary entry file, or a kept directory no entry names,
// must have been left before it is taken for what a crash left and removed: younger,
// it may be another commit's, recording in the same store meanwhile.
const staleAfter = 10 * time.Minute

// stale reports whether the file name was last changed longer than staleAfter ago.
func (s *Store) stale(name string) bool {
	fi, err := s.fs.Stat(name)
	return err == nil && time.Since(fi.ModTime()) > staleAfter
}

// writers serialises the writers of a store within the process, by the store's
// directory: the commits of several workspaces given one History record one at a time,
// each with a sequence number of its own. (Each commit holds its workspace's lock, which
// serialises the writers of a store kept for one workspace across processes.)
var writers sync.Map // directory → *sync.Mutex

// serialise takes the lock of the store in dir and returns its release.
func serialise(dir string) func() {
	m, _ := writers.LoadOrStore(dir, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// dirEntries lists the directory dir sorted by name, with each entry's type, where the
// filesystem can without a look at each (the operating system's gives the types with
// the names); elsewhere from each one's info. A link or a FIFO at dir is no directory.
func dirEntries(fsys afero.Fs, dir string) ([]fs.DirEntry, error) {
	f, err := fsys.OpenFile(dir, openDir, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var list []fs.DirEntry
	if d, ok := f.(fs.ReadDirFile); ok {
		list, err = d.ReadDir(-1)
	} else {
		var infos []fs.FileInfo
		infos, err = f.Readdir(-1)
		for _, fi := range infos {
			list = append(list, fs.FileInfoToDirEntry(fi))
		}
	}
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return list, err
}

// dropUndone removes the entries that could be redone and returns the others.
func (s *Store) dropUndone(list []name) ([]name, error) {
	kept := list[:0:0]
	for _, n := range list {
		if !n.undone {
			kept = append(kept, n)
		} else if err := s.remove(n); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// remove deletes an entry and its mark.
func (s *Store) remove(n name) error {
	if err := s.fs.Remove(n.file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the history cannot drop an entry: %w", pathless(err))
	}
	if n.kept != "" {
		if err := s.fs.RemoveAll(n.kept); err != nil {
			return fmt.Errorf("the history cannot drop an entry: %w", pathless(err))
		}
	}
	return s.setUndone(n.ID, false, nil)
}

// prune drops the oldest entries of list past the limits, keeping the newest.
func (s *Store) prune(list []name) error {
	var total int64
	for _, n := range list {
		total += n.size
	}
	for len(list) > 1 && (len(list) > s.limits.Entries || total > s.limits.Bytes) {
		if err := s.remove(list[0]); err != nil {
			return err
		}
		total -= list[0].size
		list = list[1:]
	}
	return nil
}
