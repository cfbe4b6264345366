// Package fserr rewrites filesystem errors so that their text names a path as its author
// wrote it, never the host path it resolved to.
package fserr

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// Sanitize rewrites a filesystem error so that its text names the authored path and never
// the resolved host path, an intermediate directory or a link target. The operating
// system's cause (fs.ErrNotExist, a syscall.Errno, an injected fault) stays reachable with
// errors.Is. name is the host name the error may spell out; it is scrubbed from any text
// the error carries beyond the path fields.
func Sanitize(err error, name, authored string) error {
	if err == nil {
		return nil
	}
	clean := rebuild(err, authored)
	if name != "" && name != authored && strings.Contains(clean.Error(), name) {
		return &scrubbed{text: strings.ReplaceAll(clean.Error(), name, authored), cause: err}
	}
	return clean
}

// rebuild returns the path-carrying error inside err with its paths replaced by authored,
// or err itself when it carries no path field.
func rebuild(err error, authored string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: authored, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) { // one name, not the same one twice ("rename x x: ...")
		return &scrubbed{text: le.Op + " " + authored + ": " + le.Err.Error(), cause: le.Err}
	}
	return err
}

// scrubbed is an error whose text had host names replaced. It matches its cause with
// errors.Is but does not unwrap to it, so errors.As cannot reach the unsanitised text.
type scrubbed struct {
	text  string
	cause error
}

func (e *scrubbed) Error() string { return e.text }

// Is reports whether the original error matches target.
func (e *scrubbed) Is(target error) bool { return errors.Is(e.cause, target) }
