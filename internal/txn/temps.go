package txn

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/filestate"
)

// tempPattern names temporary files: hidden, beside their target, recognisable.
const tempPattern = ".applypatch-*"

// tempStem is the most of a target's name a temporary file's name repeats, so that a
// target whose name is near the filesystem's limit (255 bytes) still gets a temporary
// file: ".", the stem, ".applypatch-" and ten random digits, or a commit's twelve-character
// id, stay within it.
const tempStem = 200

// tempPrefix is the start of a temporary file's name for a target's base name.
func tempPrefix(base string) string {
	if len(base) > tempStem {
		base = strings.ToValidUTF8(base[:tempStem], "")
	}
	return "." + base + tempPattern
}

// createTemp creates the temporary file a target's new bytes are written through: named
// for this commit when it has a journal, so recovery can find it, else at random. It is
// created with the target's mode when creating gives exactly that mode (see
// createsWithMode), which preset reports, and is private to its owner otherwise until
// its mode is set.
func (tx *txn) createTemp(target string, mode fs.FileMode, own filestate.Owner) (f afero.File, preset bool, err error) {
	if tx.jr == nil {
		f, err = afero.TempFile(tx.fsys, cleanpath.Dir(target), tempPrefix(filepath.Base(target)))
		return f, false, err
	}
	name := tx.tempName(target, tx.jr.id)
	perm, preset := fs.FileMode(0o600), tx.createsWithMode(name, mode, own)
	if preset {
		perm = mode
	}
	f, err = tx.fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	return f, preset && err == nil, err
}

// removeTemp removes a temporary file; one that stays is reported by rollback.
func (tx *txn) removeTemp(name string) error {
	err := tx.fsys.Remove(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		tx.forgetTemp(name)
		return nil
	}
	return err
}

// forgetTemp drops a temporary file from those rollback removes: renamed, or removed.
func (tx *txn) forgetTemp(name string) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	delete(tx.temps, name)
}

// addTemp records a temporary file, which rollback removes unless a step renames it.
func (tx *txn) addTemp(t created) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.temps == nil {
		tx.temps = map[string]madeTemp{}
	}
	tx.tempsMade++
	tx.temps[t.name] = madeTemp{created: t, seq: tx.tempsMade}
}

// madeTemp is a temporary file not yet renamed or removed, and when it was made among
// the commit's.
type madeTemp struct {
	created
	seq int
}

// tempsLeft are the temporary files not yet renamed or removed, in the order made.
func (tx *txn) tempsLeft() []created {
	tx.mu.Lock()
	left := slices.SortedFunc(maps.Values(tx.temps), func(a, b madeTemp) int { return a.seq - b.seq })
	tx.mu.Unlock()
	out := make([]created, len(left))
	for i, t := range left {
		out[i] = t.created
	}
	return out
}
