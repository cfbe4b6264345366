package applypatch

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/show"
)

// A Recovery reports what [Recover] found and did.
type Recovery struct {
	// Found is set when an interrupted commit's journal was found.
	Found bool `json:"found"`
	// Restored are the paths, as authored, put back to what they held before the
	// interrupted commit.
	Restored []string `json:"restored,omitempty"`
	// Removed counts the temporary files and directories the interrupted commit had
	// created and recovery removed, the journal not included.
	Removed int `json:"removed,omitempty"`
	// Left maps each path recovery left as it is to why: it was changed after the
	// interrupted commit wrote it, or could not be restored.
	Left map[string]string `json:"left,omitempty"`
	// Untrusted maps each entry of the workspace root named like a journal that is not
	// one this user's applypatch wrote (planted by a clone, a tarball, another user or
	// program) to why it is not: it was neither read further nor acted on, and is left
	// where it is.
	Untrusted map[string]string `json:"untrusted,omitempty"`
	// Pending is set by a dry run that found an interrupted commit and, writing
	// nothing, left it for a run that writes.
	Pending bool `json:"pending,omitempty"`
}

// String says what was recovered, in one line: empty when there was nothing.
func (r *Recovery) String() string {
	if r == nil {
		return ""
	}
	var parts []string
	switch {
	case r.Pending:
		parts = append(parts, "an interrupted commit's journal is in the workspace; this dry run changed nothing: "+
			"run \"applypatch --recover\" (or Recover) to put back what it wrote, then check again")
	case r.Found:
		parts = append(parts, r.did())
	}
	for _, n := range slices.Sorted(maps.Keys(r.Untrusted)) {
		parts = append(parts, fmt.Sprintf("left %s as it is: it is not a journal of this user's applypatch (%s), so nothing in it was acted on; "+
			"if you do not know where it came from, remove it with: rm -rf -- %s", show.Path(n), r.Untrusted[n], shellQuote(n)))
	}
	return show.Clip(strings.Join(parts, "\n"), show.ErrorBudget)
}

// did says what recovery did of a trusted journal.
func (r *Recovery) did() string {
	var b strings.Builder
	b.WriteString("recovered an interrupted commit: ")
	if len(r.Restored) == 0 {
		b.WriteString("no path had been changed")
	} else {
		fmt.Fprintf(&b, "restored %s", strings.Join(show.Paths(r.Restored), ", "))
	}
	if r.Removed > 0 {
		fmt.Fprintf(&b, "; removed %d temporary files and directories it had created", r.Removed)
	}
	for _, p := range slices.Sorted(maps.Keys(r.Left)) {
		fmt.Fprintf(&b, "; left %s: %s", show.Path(p), r.Left[p])
	}
	return b.String()
}

// shellQuote quotes a name for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Recover undoes a commit that was interrupted (the process killed, the machine
// stopped) in the workspace opts describe on fsys: every path it had written is put back
// to its baseline, with its mode and owner, and the temporary files, directories and the
// journal it had created are removed, so the tree is as it was before that commit. A
// path changed by someone else since the interrupted commit wrote it is left as it is
// and reported in Recovery.Left. With no interrupted commit it does nothing and reports
// Found false.
//
// Only a journal this user's applypatch wrote is acted on (see Options.JournalKey); any
// other is left where it is and reported in Recovery.Untrusted. Recovery reads and
// writes only inside the workspace, through the same fence as a payload, whatever a
// journal names.
// When it cannot finish (a path cannot be restored, a file it must remove stays) it
// returns what it did with an [*IncompleteRollbackError]; run it again once the cause is
// fixed.
//
// Hosts call it when they start, before anything else touches the workspace; [Commit]
// and [Apply] also run it under their lock before they write, and say what it did in
// their result. It holds the workspace's lock while it runs, waiting for it as long as
// ctx allows.
func Recover(ctx context.Context, fsys afero.Fs, opts *Options) (*Recovery, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, err
	}
	key, err := journalKey(fsys, opts)
	if err != nil {
		return nil, err
	}
	unlock, err := lockWorkspace(ctx, fsys, f, opts)
	if err != nil {
		return nil, lockError(err)
	}
	defer unlock()
	return recoverJournal(f, key)
}

// recoverFor runs recovery for Apply, which holds the lock already.
func recoverFor(fsys afero.Fs, opts *Options) (*Recovery, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return &Recovery{}, nil // Resolve reports it
	}
	key, err := journalKey(fsys, opts)
	if err != nil {
		return &Recovery{}, err
	}
	return recoverJournal(f, key)
}

// pendingFor is what a dry run says of the journals in the workspace: it reads them,
// verifies them and acts on none.
func pendingFor(fsys afero.Fs, opts *Options) *Recovery {
	r := &Recovery{}
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return r
	}
	key, err := journalKey(fsys, opts)
	if err != nil {
		return r
	}
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

// untrusted records a journal recovery does not act on.
func (r *Recovery) untrusted(j foundJournal) {
	if r.Untrusted == nil {
		r.Untrusted = map[string]string{}
	}
	r.Untrusted[j.name] = j.why
}

// recoverJournal undoes each interrupted commit whose journal, verified under key, is in
// the workspace root, and reports the others. The caller holds the workspace's lock.
func recoverJournal(f *fence.Fence, key []byte) (*Recovery, error) {
	r := &Recovery{Left: map[string]string{}}
	for _, j := range findJournals(f.Files(), f.Real(), key) {
		if j.why != "" {
			r.untrusted(j)
			continue
		}
		r.Found = true
		dir := filepath.Join(f.Real(), j.name)
		if j.rec != nil {
			rc := &recovery{fsys: f.Files(), f: f, dir: dir, rec: j.rec, r: r}
			if err := rc.run(); err != nil {
				return r, recoveryError(r, err)
			}
		}
		// Without a complete record the commit never wrote: only the journal is left.
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
func removeOwnJournal(fsys afero.Fs, dir string, r *Recovery) error {
	names, err := readDirNames(fsys, dir)
	if err != nil && !absent(err) {
		return fserr.Sanitize(err, dir, filepath.Base(dir))
	}
	kept := false
	for _, n := range names {
		if !ownFiles.MatchString(n) {
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
	return nil
}

// recoveryError is a recovery that stopped at err: every path it left is not restored.
func recoveryError(r *Recovery, err error) error {
	paths := make([]string, 0, len(r.Left))
	for p := range r.Left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return &IncompleteRollbackError{Cause: err, Paths: paths, Reasons: r.Left, recovery: true}
}

// withRecovery puts what recovery did, or found and left, into the result the model
// reads: a note of a result, a line after an error's message.
func withRecovery(res *Result, r *Recovery) *Result {
	msg := r.String()
	if msg == "" || res == nil || slices.Contains(res.Notes, msg) {
		return res
	}
	if res.Status == StatusError {
		res.Message += "\n" + msg
		res.Notes = append(res.Notes, msg)
		return res
	}
	res.note(msg)
	return res
}
