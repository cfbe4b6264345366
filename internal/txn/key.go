package txn

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/spf13/afero"
)

// keyFile is the name of the user's journal key in the state directory.
const keyFile = "journal.key"

// minJournalKey is the shortest key a host may supply.
const minJournalKey = 16

// processKey authenticates the journals of filesystems that live no longer than the
// process (an afero.MemMapFs, say): no other process can recover them anyway.
var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
})

// userKeys caches the user's key by state directory once it was read or made.
var userKeys sync.Map

// Key is the key that authenticates the journals of a commit on fsys: the
// host's, else the process's for a filesystem in memory, else the user's.
func Key(fsys afero.Fs, c Config) ([]byte, error) {
	switch {
	case c.JournalKey != nil && len(c.JournalKey) < minJournalKey:
		return nil, fmt.Errorf("applypatch: Options.JournalKey has %d bytes; give at least %d random bytes", len(c.JournalKey), minJournalKey)
	case c.JournalKey != nil:
		return c.JournalKey, nil
	case inMemory(fsys):
		return processKey(), nil
	}
	dir, err := stateDir()
	if err != nil {
		return nil, err
	}
	if k, ok := userKeys.Load(dir); ok {
		return k.([]byte), nil
	}
	k, err := loadUserKey(dir)
	if err != nil {
		return nil, fmt.Errorf("applypatch: the journal key in %s cannot be used: %w; "+
			"set XDG_STATE_HOME to a directory of your own, or have the host pass Options.JournalKey", dir, err)
	}
	userKeys.Store(dir, k)
	return k, nil
}

// inMemory reports whether fsys keeps its files in the process's memory (an
// afero.MemMapFs, directly or under wrappers that name their base with Unwrap), so that
// no other process can ever recover its journals.
func inMemory(fsys afero.Fs) bool {
	for range 16 {
		switch f := fsys.(type) {
		case *afero.MemMapFs:
			return true
		case interface{ Unwrap() afero.Fs }:
			fsys = f.Unwrap()
		default:
			return false
		}
	}
	return false
}

// stateDir is where the user's key lives: $XDG_STATE_HOME/applypatch, by default
// ~/.local/state/applypatch. A relative XDG_STATE_HOME is ignored, as the XDG
// specification says.
func stateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "applypatch"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", errors.New("applypatch: there is no home directory to keep the journal key in; " +
			"set XDG_STATE_HOME to a directory of your own, or have the host pass Options.JournalKey")
	}
	return filepath.Join(home, ".local", "state", "applypatch"), nil
}

// loadUserKey reads the key in dir, making the directory (0700) and the key (0600)
// first when they are missing. Both must belong to this user and be private.
func loadUserKey(dir string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := checkPrivate(os.Lstat(dir)); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, keyFile)
	k, err := readKey(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := makeKey(dir, name); err != nil {
			return nil, err
		}
		k, err = readKey(name)
	}
	return k, err
}

// makeKey writes a new key beside name and links it into place, so a concurrent
// process either makes it first or reads a whole key.
func makeKey(dir, name string) error {
	f, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	k := make([]byte, 32)
	rand.Read(k)
	_, err = f.WriteString(hex.EncodeToString(k) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(f.Name(), name); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// readKey reads a key file without following a link or blocking on a FIFO.
func readKey(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|oNoFollow|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err := checkPrivate(fi, err); err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 256 {
		return nil, errors.New("the key is not a small regular file")
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(string(trimNewline(data)))
	if err != nil || len(k) < minJournalKey {
		return nil, errors.New("the key is not a hex key of at least 16 bytes")
	}
	return k, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// checkPrivate checks that a file or directory is this user's own and that no one else
// may write it (a key, a journal) or read it (a key).
func checkPrivate(fi fs.FileInfo, err error) error {
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return errors.New("it is a symbolic link")
	}
	if own := filestate.OwnerOf(fi); own.Known && own.UID != filestate.ProcessIdentity().UID {
		return fmt.Errorf("it belongs to user %d, not to this process's user", own.UID)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("its mode %04o lets others read or write it; make it 0700 (a directory) or 0600 (a file)", fi.Mode().Perm())
	}
	return nil
}

// StateDir is the directory of the user's applypatch state: $XDG_STATE_HOME/applypatch,
// by default ~/.local/state/applypatch.
func StateDir() (string, error) { return stateDir() }
