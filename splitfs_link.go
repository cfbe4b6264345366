package applypatch

import (
	"os"
	"syscall"
)

// Link makes newname a hard link to oldname when both lie on one side of the workspace
// boundary and that filesystem has hard links.
func (s *splitFs) Link(oldname, newname string) error {
	fo, o := s.route(oldname)
	fn, n := s.route(newname)
	if fo != fn {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: syscall.EXDEV}
	}
	return linkFile(fo, o, n)
}
