package history

import "github.com/applypatch/applypatch/internal/fserr"

// pathless drops the names from a filesystem error: the names of a history are those of
// the user's state directory, which a result read by a model or shown in a browser must
// not disclose. The cause stays reachable with errors.Is.
func pathless(err error) error { return fserr.Sanitize(err, "", "a history file") }
