package txn

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/spf13/afero"
)

// Pending is what a dry run says of the journals in the workspace: it reads
// them, verifies them and acts on none.
func Pending(f *fence.Fence, key []byte) *Recovered {
	r := &Recovered{}
	for _, j := range findJournals(f.Files(), f.Real(), key) {
		switch {
		case j.why != "":
			r.untrusted(j)
		default:
			r.Pending = true
		}
	}
	return r
}

// A Recovered report says what recovery found and did, field for field the public
// report: whether a journal of ours was found, the paths restored (as authored), how
// many temporary files and directories were removed, each path left and why, each
// journal-like entry not trusted and why, and whether a dry run left a journal pending.
type Recovered struct {
	Found     bool
	Restored  []string
	Removed   int
	Left      map[string]string
	Untrusted map[string]string
	Pending   bool
	// Unrecorded counts the journals found without a complete record: of a commit
	// killed before it began to write, or after it finished writing.
	Unrecorded int
	// RolledBack counts the journals with their record: of a commit killed before it
	// became final, which recovery undid.
	RolledBack int
}

// untrusted records a journal recovery does not act on.
func (r *Recovered) untrusted(j foundJournal) {
	if r.Untrusted == nil {
		r.Untrusted = map[string]string{}
	}
	r.Untrusted[j.name] = j.why
}

// Recover undoes each interrupted commit whose journal, verified under key, is in
// the workspace root, and reports the others. The caller holds the workspace's lock.
func Recover(f *fence.Fence, key []byte) (*Recovered, error) {
	r := &Recovered{Left: map[string]string{}}
	for _, j := range findJournals(f.Files(), f.Real(), key) {
		if j.why != "" {
			r.untrusted(j)
			continue
		}
		r.Found = true
		dir := filepath.Join(f.Real(), j.name)
		if j.rec != nil {
			r.RolledBack++
			rc := &recovery{fsys: f.Files(), f: f, dir: dir, rec: j.rec, r: r}
			if err := rc.run(); err != nil {
				return r, recoveryError(r, err)
			}
		}
		// Without a complete record the commit had not begun to write, or had finished
		// (the record goes first): only the journal is left.
		if j.rec == nil {
			r.Unrecorded++
		}
		if err := removeOwnJournal(f.Files(), dir, r); err != nil {
			return r, recoveryError(r, err)
		}
	}
	if len(r.Left) == 0 {
		r.Left = nil
	}
	return r, nil
}

// removeOwnJournal removes what a commit writes in its journal directory, then the
// directory. A name a commit never writes there is left, with the directory, and
// reported in r.Left.
func removeOwnJournal(fsys afero.Fs, dir string, r *Recovered) error {
	names, err := readDirNames(fsys, dir)
	if err != nil && !absent(err) {
		return fserr.Sanitize(err, dir, filepath.Base(dir))
	}
	kept := false
	for _, n := range names {
		if !ownFile(n) {
			r.Left[filepath.Base(dir)+"/"+n] = "applypatch never writes this name in its journal; left with the journal directory, look at it and remove them"
			kept = true
			continue
		}
		if err := fsys.Remove(filepath.Join(dir, n)); err != nil && !absent(err) {
			return fserr.Sanitize(err, filepath.Join(dir, n), filepath.Base(dir)+"/"+n)
		}
	}
	if kept {
		return nil
	}
	if err := fsys.Remove(dir); err != nil && !absent(err) {
		return fserr.Sanitize(err, dir, filepath.Base(dir))
	}
	clearPending(dir)
	return nil
}

// recoveryError is a recovery that stopped at err: every path it left is not restored.
func recoveryError(r *Recovered, err error) error {
	paths := make([]string, 0, len(r.Left))
	for p := range r.Left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return &Incomplete{Cause: err, Paths: paths, Reasons: r.Left, Recovery: true}
}

// A found journal is one entry of the workspace root named like a journal: trusted
// (ours, with its record, nil when the record was never completed) or not, and why.
type foundJournal struct {
	name string // the entry's name in the root
	id   string // the commit id its name carries, when trusted
	rec  *Record
	why  string // set when it is not to be acted on
}

// findJournals lists the entries of the workspace root named like a journal, in any
// case, and vets each without following a link or opening anything but a regular
// file of ours. A root that cannot be listed has no journal to find; resolving the
// payload reports why.
func findJournals(fsys afero.Fs, root string, key []byte) []foundJournal {
	names, err := readDirNames(fsys, root)
	if err != nil {
		return nil
	}
	sort.Strings(names)
	var out []foundJournal
	for _, n := range names {
		if strings.HasPrefix(strings.ToLower(n), fence.JournalPrefix) {
			out = append(out, vetJournal(fsys, root, key, n))
		}
	}
	return out
}

// vetJournal decides whether the journal-like entry name of root may be acted on.
func vetJournal(fsys afero.Fs, root string, key []byte, name string) foundJournal {
	j := foundJournal{name: name}
	id, ok := journalID(key, name)
	if !ok {
		j.why = "its name is not sealed with this user's journal key"
		return j
	}
	dir := filepath.Join(root, name)
	fi, err := lstat(fsys, dir)
	switch {
	case err != nil:
		j.why = "it cannot be read: " + errors.Unwrap(err).Error()
		return j
	case fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir():
		j.why = "it is not a directory but " + kindOf(fi)
		return j
	}
	if err := checkPrivate(fi, nil); err != nil {
		j.why = err.Error()
		return j
	}
	j.id = id
	rec, err := readRecord(fsys, dir, key)
	switch {
	case errors.Is(err, errIncomplete):
	case err != nil:
		j.why = err.Error()
	case rec.ID != id:
		j.why = "its record belongs to another commit"
	default:
		j.rec = rec
	}
	return j
}

// errIncomplete says a journal's record is missing or shorter than it says it is: the
// commit stopped before its record was synced, so it never wrote.
var errIncomplete = errors.New("the record was never completed")

// readRecord reads and verifies the record of a trusted journal directory. It opens the
// record without following a link or blocking on a FIFO, and reads it only when it is
// a regular, private file within journalLimit.
func readRecord(fsys afero.Fs, dir string, key []byte) (*Record, error) {
	f, err := fsys.OpenFile(filepath.Join(dir, journalFile), os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if absent(err) {
		return nil, errIncomplete
	}
	if err != nil {
		return nil, fmt.Errorf("its record cannot be opened: %v", errors.Unwrap(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("its record is %s, not a file", kindOf(fi))
	case fi.Size() > journalLimit:
		return nil, fmt.Errorf("its record has %d bytes, more than a journal ever holds", fi.Size())
	}
	if err := checkPrivate(fi, nil); err != nil {
		return nil, fmt.Errorf("its record: %v", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, journalLimit+1))
	if err != nil {
		return nil, err
	}
	rec, err := openRecord(key, filepath.Base(dir), data)
	if errors.Is(err, errCutShort) {
		return nil, errIncomplete
	}
	return rec, err
}

// kindOf names what a file is, for a report.
func kindOf(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a file"
}

// lstat is Lstat where the filesystem has it, else Stat.
func lstat(fsys afero.Fs, name string) (fs.FileInfo, error) {
	if ls, ok := fsys.(afero.Lstater); ok {
		fi, _, err := ls.LstatIfPossible(name)
		return fi, err
	}
	return fsys.Stat(name)
}

// ownFile reports whether name is one a commit writes in its journal directory: its
// record, journal.json, or a kept baseline, "b" and a number. (A function, not a
// regular expression compiled as the package starts: every run of the command would
// pay for that.)
func ownFile(name string) bool {
	if name == "journal.json" {
		return true
	}
	digits, ok := strings.CutPrefix(name, "b")
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}
