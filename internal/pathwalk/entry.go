package pathwalk

import (
	"path/filepath"

	"github.com/applypatch/applypatch/internal/cleanpath"
)

// ResolveEntry resolves name as an entry of its directory: its parents are followed, a
// final symbolic link is not. It is what a Delete removes: the link itself, as rm and git
// do, never the file it points to.
func (r *Resolver) ResolveEntry(dir, name string) (Resolution, error) {
	base := filepath.Base(name)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return r.Resolve(dir, name) // names a directory the walk must reach
	}
	res, err := r.Resolve(dir, filepath.Dir(name))
	if err != nil {
		return Resolution{}, err
	}
	res.Name, res.Info = cleanpath.Join(res.Name, base), nil
	return res, nil
}
