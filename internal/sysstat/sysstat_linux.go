//go:build linux

// Package sysstat decodes what a stat system call returns into an fs.FileInfo the way the
// os package decodes it, with the same *syscall.Stat_t from Sys, for the callers that
// make the call themselves (on a descriptor, or relative to an open directory).
package sysstat

import (
	"io/fs"
	"syscall"
	"time"
)

// Info is the FileInfo of one stat call's result.
type Info struct {
	// Base is the name's last component, as os.FileInfo.Name reports it.
	Base string
	// Stat is the call's result.
	Stat syscall.Stat_t
}

var _ fs.FileInfo = (*Info)(nil)

func (fi *Info) Name() string       { return fi.Base }
func (fi *Info) Size() int64        { return fi.Stat.Size }
func (fi *Info) ModTime() time.Time { return time.Unix(fi.Stat.Mtim.Unix()) }
func (fi *Info) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *Info) Sys() any           { return &fi.Stat }

// typeBits are the file types of st_mode and the fs.FileMode bits os gives each.
var typeBits = map[uint32]fs.FileMode{
	syscall.S_IFBLK:  fs.ModeDevice,
	syscall.S_IFCHR:  fs.ModeDevice | fs.ModeCharDevice,
	syscall.S_IFDIR:  fs.ModeDir,
	syscall.S_IFIFO:  fs.ModeNamedPipe,
	syscall.S_IFLNK:  fs.ModeSymlink,
	syscall.S_IFSOCK: fs.ModeSocket,
}

// specialBits are the set-id and sticky bits of st_mode and their fs.FileMode bits.
var specialBits = [...]struct {
	sys  uint32
	mode fs.FileMode
}{
	{syscall.S_ISGID, fs.ModeSetgid},
	{syscall.S_ISUID, fs.ModeSetuid},
	{syscall.S_ISVTX, fs.ModeSticky},
}

func (fi *Info) Mode() fs.FileMode {
	m := fs.FileMode(fi.Stat.Mode&0o777) | typeBits[fi.Stat.Mode&syscall.S_IFMT]
	for _, b := range specialBits {
		if fi.Stat.Mode&b.sys != 0 {
			m |= b.mode
		}
	}
	return m
}
