package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// tree writes the manifest of the tree at dir: one line a path (Go-quoted, relative,
// in walk order, which is sorted), with its mode; for a file its link count, size and
// hash; for a symbolic link its target. A dir that is not there is written as absent.
// No time is recorded: the times of written files differ from run to run. The state
// directory's history (applypatch/history) is left out: its names are random ids and
// times, and a build that keeps one differs from one that does not only there.
func (r *record) tree(label, dir string) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		r.line("--- tree " + label + ": absent")
		return
	}
	r.line("--- tree " + label)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			r.line(fmt.Sprintf("%q error %v", rel(dir, p), err))
			return nil
		}
		if label == "state" && d.IsDir() && rel(dir, p) == "applypatch/history" {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			r.line(fmt.Sprintf("%q error %v", rel(dir, p), err))
			return nil
		}
		r.line(entry(dir, p, fi))
		return nil
	})
	if err != nil {
		r.line("walk error: " + err.Error())
	}
}

func rel(root, p string) string {
	s, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(s)
}

func entry(root, p string, fi fs.FileInfo) string {
	s := fmt.Sprintf("%q %v", rel(root, p), fi.Mode())
	switch {
	case fi.Mode().IsRegular():
		nlink := uint64(1)
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			nlink = uint64(st.Nlink)
		}
		s += fmt.Sprintf(" links %d size %d %s", nlink, fi.Size(), fileHash(p, fi.Size()))
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			t = "error " + err.Error()
		}
		s += " -> " + strconv.Quote(t)
	}
	return s
}

// bigFile is the size above which a file is hashed by chunks, skipping holes: a
// planted 3 GiB sparse journal is hashed in the time of its data.
const bigFile = 64 << 20

// fileHash is the SHA-256 of a file's bytes; above bigFile, the SHA-256 of the offset
// and SHA-256 of each 1 MiB chunk that holds a byte other than zero, which is the same
// for the same bytes however the file's holes lie.
func fileHash(p string, size int64) string {
	f, err := os.Open(p)
	if err != nil {
		return "error " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if size <= bigFile {
		if _, err := io.Copy(h, f); err != nil {
			return "error " + err.Error()
		}
		return "sha256 " + hex.EncodeToString(h.Sum(nil))
	}
	const chunk = 1 << 20
	buf := make([]byte, chunk)
	zero := make([]byte, chunk)
	for off := int64(0); off < size; off += chunk {
		// Skip to the next data: whence 3 is SEEK_DATA, where the system has it.
		if next, err := f.Seek(off, 3); err == nil && next > off {
			off = next / chunk * chunk
		} else if err != nil && !errors.Is(err, syscall.EINVAL) {
			break // ENXIO: no data after off
		}
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return "error " + err.Error()
		}
		if !bytes.Equal(buf[:n], zero[:n]) {
			sum := sha256.Sum256(buf[:n])
			fmt.Fprintf(h, "%d %x\n", off, sum)
		}
	}
	return "chunked-sha256 " + hex.EncodeToString(h.Sum(nil))
}

// contentLimit bounds the size of a file whose bytes contents writes out.
const contentLimit = 256 << 10

// contents writes the bytes of every regular file up to contentLimit in the tree at
// dir, so that a difference in a file shows as a diff of its lines and not only of its
// hash.
func (r *record) contents(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() > contentLimit {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		r.output("file "+strconv.Quote(r.norm(p)), string(b))
		return nil
	})
}

// copyTree copies the tree at src to dst as cp -a does: modes, times and symbolic
// links kept.
func copyTree(src, dst string) error {
	type dirTime struct {
		path string
		fi   fs.FileInfo
	}
	var dirs []dirTime
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(dst, p[len(src):])
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(to, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dirTime{to, fi})
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(t, to)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, b, 0o600); err != nil {
				return err
			}
			if err := os.Chmod(to, fi.Mode()&fs.ModePerm|fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
				return err
			}
			return os.Chtimes(to, fi.ModTime(), fi.ModTime())
		default:
			return fmt.Errorf("cannot copy %s: a %v", p, fi.Mode().Type())
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		m := dirs[i].fi.Mode()
		if err := os.Chmod(dirs[i].path, m&fs.ModePerm|m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
			return err
		}
		if err := os.Chtimes(dirs[i].path, dirs[i].fi.ModTime(), dirs[i].fi.ModTime()); err != nil {
			return err
		}
	}
	return nil
}

// removeAll removes a tree, making its directories writable first, as a case may have
// left one that is not.
func removeAll(dir string) error {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
