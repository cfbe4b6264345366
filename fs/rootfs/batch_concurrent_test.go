package rootfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spf13/afero"
)

// TestBatchHeldConcurrent works in kept directories from several goroutines at once
// while the root's lock is held, as a commit's goroutines do: each replaces files in a
// directory of its own through temporary files and renames, links and removes, while
// another goroutine renames a directory away and makes one of that name again. Every
// file ends with its last write, nothing is left behind, the files written after a
// directory was made again land in the new one, and nothing is written outside the
// root. Run it with -race: the batch is shared by the goroutines (PERF5, F1).
func TestBatchHeldConcurrent(t *testing.T) {
	e := newEnv(t)
	fsys, _ := heldBatch(t, e)
	const workers, rounds = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for w := range workers {
		dir := fmt.Sprintf("w%d", w)
		if err := fsys.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { errs <- replaceMany(fsys, dir, rounds) })
	}
	wg.Go(func() { errs <- churnDir(fsys, "churn", rounds) })
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for w := range workers {
		for f := range 4 {
			name := fmt.Sprintf("w%d/f%d.txt", w, f)
			if b, err := os.ReadFile(e.host(name)); err != nil || string(b) != fmt.Sprint(rounds-1) {
				t.Errorf("%s = %q, %v; want the last round's write", name, b, err)
			}
		}
		if entries, _ := os.ReadDir(e.host(fmt.Sprintf("w%d", w))); len(entries) != 4 {
			t.Errorf("w%d holds %d entries, want its 4 files and nothing left behind", w, len(entries))
		}
	}
	if entries, _ := os.ReadDir(e.outside); len(entries) != 1 {
		t.Errorf("the directory outside the root holds %d entries, want only secret.txt", len(entries))
	}
}

// replaceMany writes 4 files in dir rounds times each, as a commit replaces a file: a
// temporary file made exclusively, filled, renamed over the target, looked at; then a
// hard link to it made and removed.
func replaceMany(fsys *Fs, dir string, rounds int) error {
	for r := range rounds {
		for f := range 4 {
			target := fmt.Sprintf("%s/f%d.txt", dir, f)
			tmp := fmt.Sprintf("%s/.f%d.tmp", dir, f)
			file, err := fsys.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return fmt.Errorf("round %d: create %s: %w", r, tmp, err)
			}
			_, werr := file.Write([]byte(fmt.Sprint(r)))
			if cerr := file.Close(); werr != nil || cerr != nil {
				return fmt.Errorf("round %d: write %s: %v %v", r, tmp, werr, cerr)
			}
			if err := fsys.Rename(tmp, target); err != nil {
				return fmt.Errorf("round %d: rename %s: %w", r, tmp, err)
			}
			if fi, err := fsys.Stat(target); err != nil || fi.Size() != int64(len(fmt.Sprint(r))) {
				return fmt.Errorf("round %d: stat %s: %v, %v", r, target, fi, err)
			}
			link := target + ".link"
			if err := fsys.Link(target, link); err != nil {
				return fmt.Errorf("round %d: link %s: %w", r, target, err)
			}
			if err := fsys.Remove(link); err != nil {
				return fmt.Errorf("round %d: remove %s: %w", r, link, err)
			}
		}
	}
	return nil
}

// churnDir makes dir, writes a file in it, renames it away and makes it again, rounds
// times: each write must land in the directory the name holds then.
func churnDir(fsys *Fs, dir string, rounds int) error {
	for r := range rounds {
		if err := fsys.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("round %d: mkdir: %w", r, err)
		}
		name := dir + "/a.txt"
		if err := afero.WriteFile(fsys, name, []byte(fmt.Sprint(r)), 0o644); err != nil {
			return fmt.Errorf("round %d: write: %w", r, err)
		}
		if b, err := afero.ReadFile(fsys, name); err != nil || string(b) != fmt.Sprint(r) {
			return fmt.Errorf("round %d: %s = %q, %v; want this round's write in the new directory", r, name, b, err)
		}
		away := fmt.Sprintf("%s-away%d", dir, r)
		if err := fsys.Rename(dir, away); err != nil {
			return fmt.Errorf("round %d: rename away: %w", r, err)
		}
		if _, err := fsys.Stat(name); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("round %d: %s after the rename = %v, want it gone", r, name, err)
		}
		if err := fsys.RemoveAll(away); err != nil {
			return fmt.Errorf("round %d: remove %s: %w", r, filepath.Base(away), err)
		}
	}
	return nil
}
