package fence

import (
	"errors"

	"github.com/applypatch/applypatch/internal/sysstat"
)

// ErrMoved refuses a call whose workspace filesystem is not the directory the
// workspace's name leads to: the host opened the directory (an os.Root, say) and it was
// moved, removed or replaced since, or the host opened another directory than the name
// leads to, so the call's writes would land where the fence does not look.
var ErrMoved = errors.New("the workspace directory was moved, removed or replaced while the tool had it open " +
	"(or the tool opened another directory than the workspace's name leads to); nothing was written. " +
	"Retry once; if this error comes back, the tool must open the workspace again: tell the user to restart it")

// Moved reports, as ErrMoved, whether the configuration's WorkspaceFs is another
// directory than the one the workspace's name leads to now, where the two filesystems
// tell a directory's identity (the operating system's do), or the name leads nowhere
// any more. Without a WorkspaceFs there is nothing to compare.
func (f *Fence) Moved() error {
	if f.wfs == nil {
		return nil
	}
	opened, err := f.wfs.Stat("/")
	if err != nil {
		return nil // the calls through it fail, and say why
	}
	if named, err := f.fsys.Stat(f.real); err != nil || sysstat.OtherFile(opened, named) {
		return ErrMoved
	}
	return nil
}
