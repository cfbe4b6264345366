package fence

import "errors"

// ErrMoved refuses a call whose workspace filesystem is not the directory the
// workspace's name leads to: the host opened the directory (an os.Root, say) and it was
// moved, removed or replaced since, or the host opened another directory than the name
// leads to, so the call's writes would land where the fence does not look.
var ErrMoved = errors.New("the workspace directory was moved, removed or replaced while the tool had it open " +
	"(or the tool opened another directory than the workspace's name leads to); nothing was written. " +
	"Retry once; if this error comes back, the tool must open the workspace again: tell the user to restart it")

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
