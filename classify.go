package applypatch

import "github.com/spf13/afero"

// Classify resolves and classifies every path of a patch, without reading any file's
// contents, so that a host can decide about a call before it runs: show a person
// which paths it would touch, pre-approve it, or refuse it. Paths come in payload order,
// each Move destination right after its source. Resolution follows symbolic links on fsys
// exactly as [Resolve] and [Commit] do; only metadata is read (Lstat, Readlink).
//
// Forbidden paths are reported with their class, not as an error: [Resolve] refuses them.
// A path that cannot be resolved (a link loop, an unreadable directory) makes the error
// join a [*FileError] with reason [FileUnreadable] for each; invalid patterns in opts are
// an error too.
func Classify(fsys afero.Fs, p *Patch, opts *Options) ([]ClassifiedPath, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, err
	}
	var paths []ClassifiedPath
	var errs []error
	add := func(authored string, kind OpKind) {
		cp, _, err := classifyPath(f, authored, kind)
		if err != nil {
			errs = append(errs, err)
			return
		}
		paths = append(paths, cp)
	}
	for _, op := range p.Ops {
		add(op.Path, op.Kind)
		if op.MoveTo != "" {
			add(op.MoveTo, OpAdd)
		}
	}
	if len(errs) > 0 {
		return nil, &patchError{errs: errs}
	}
	return paths, nil
}
