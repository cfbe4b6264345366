package applypatch

import (
	"github.com/applypatch/applypatch/internal/filestate"
)

// captureEntry reads a change's baseline: for a Delete whose path is a symbolic link,
// the link itself (its target text, with fs.ModeSymlink in the mode), since that is what
// is removed; otherwise what the path holds, links followed.
func (pr *Proposal) captureEntry(c *change) (filestate.Baseline, error) {
	if c.Op.Kind == OpDelete {
		if st := filestate.ReadLink(pr.files(), c.name); st.Err == nil && st.Exists {
			return filestate.Baseline{Exists: true, Mode: st.Mode, Bytes: st.Data}, nil
		}
	}
	return pr.capture(c.name, c.Op.Path)
}
