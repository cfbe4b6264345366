package history

import (
	"errors"
	"io/fs"
	"os"
)

// A pathlessError is a filesystem error told without the name it was about: the names
// of a history are those of the user's state directory, which a result read by a model
// or shown in a browser must not disclose. It unwraps to the cause, so errors.Is still
// tells, say, fs.ErrNotExist.
type pathlessError struct {
	op  string
	err error
}

func (e *pathlessError) Error() string { return e.op + ": " + e.err.Error() }

func (e *pathlessError) Unwrap() error { return e.err }

// pathless drops the names from a filesystem error: a *fs.PathError or an *os.LinkError
// becomes its operation and its cause.
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &pathlessError{op: pe.Op, err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &pathlessError{op: le.Op, err: le.Err}
	}
	return err
}
