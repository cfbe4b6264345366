package fence

import "errors"

// ErrMoved refuses a call whose workspace filesystem is no longer the directory the
// workspace's name leads to: the host opened the directory once (an os.Root, say), and
// it was moved, removed or replaced since, so its writes would land in a directory that
// is not the workspace any more.
var ErrMoved = errors.New("the workspace directory was moved, removed or replaced since the host opened it, " +
	"so its files would be written elsewhere; nothing was written. The host must open the workspace again " +
	"(restart the tool or the server), then retry")

// Moved reports, as ErrMoved, whether the configuration's WorkspaceFs is another
// directory than the one the workspace's name leads to now, where the two filesystems
// tell a directory's identity (the operating system's do); a workspace that no longer
// exists has moved too. Without a WorkspaceFs there is nothing to compare.
func (f *Fence) Moved() error {
	if f.wfs == nil {
		return nil
	}
	opened, err := f.wfs.Stat("/")
	if err != nil {
		return nil // the calls through it fail, and say why
	}
	named, err := f.fsys.Stat(f.real)
	if err != nil {
		if _, ok := identity(opened); ok {
			return ErrMoved
		}
		return nil
	}
	if a, ok := identity(opened); ok {
		if b, ok := identity(named); ok && a != b {
			return ErrMoved
		}
	}
	return nil
}
