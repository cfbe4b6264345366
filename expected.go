package applypatch

import (
	"maps"
	"slices"

	"github.com/applypatch/applypatch/internal/filestate"
)

// expectations resolves the snapshots the host expects (Options.Expected) to the names
// the commit reads and writes. A key may spell a path of the payload any way: its
// resolved name, the path as authored, or another path, relative to the workspace or
// absolute, that leads to the same file through "." and ".." and symbolic links. A key
// that names no path of the payload is a [*ConflictError] of reason [ConflictNotInPatch], so a misspelt key is
// never skipped in silence. Several keys may name one path; its every snapshot is
// checked.
func (pr *Proposal) expectations() (map[string][]Snapshot, error) {
	if len(pr.opts.Expected) == 0 {
		return nil, nil
	}
	f, err := pr.fencer()
	if err != nil {
		return nil, err
	}
	byPath, names := map[string]string{}, map[string]bool{}
	for _, c := range pr.changes {
		byPath[c.Op.Path], names[c.name] = c.name, true
		if c.Op.MoveTo != "" {
			byPath[c.Op.MoveTo], names[c.moveName] = c.moveName, true
		}
	}
	out := map[string][]Snapshot{}
	unknown := &ConflictError{Reason: ConflictNotInPatch}
	for _, key := range slices.Sorted(maps.Keys(pr.opts.Expected)) {
		name, ok := byPath[key]
		if !ok {
			res, err := f.Resolver().Resolve(f.Real(), key)
			name, ok = res.Name, err == nil && names[res.Name]
		}
		if !ok {
			unknown.Paths = append(unknown.Paths, key)
			unknown.shown = append(unknown.shown, f.Show(key))
			continue
		}
		out[name] = append(out[name], pr.opts.Expected[key])
	}
	if len(unknown.Paths) > 0 {
		return nil, unknown
	}
	return out, nil
}

// checkExpected checks the snapshots the host expects against the baselines Resolve
// captured, for a dry run: the conflict a commit would meet if nothing changed
// meanwhile.
func (pr *Proposal) checkExpected() error {
	expected, err := pr.expectations()
	if err != nil || expected == nil {
		return err
	}
	plan, err := pr.plan()
	if err != nil {
		return err
	}
	stale := &ConflictError{Reason: ConflictChanged}
	want := expects(expected)
	for _, st := range plan {
		b := st.Base
		if !(filestate.State{Exists: b.Exists, Dir: b.Dir, Mode: b.Mode, Data: b.Bytes}).SatisfiesAll(want[st.Name]) {
			stale.Paths = appendNew(stale.Paths, st.Path)
			stale.Expected = appendNew(stale.Expected, st.Path)
		}
	}
	if len(stale.Paths) > 0 {
		return stale
	}
	return nil
}

// expects converts the host's snapshots, by resolved name, to what the check reads: once
// per call.
func expects(m map[string][]Snapshot) map[string][]filestate.Expect {
	if m == nil {
		return nil
	}
	out := make(map[string][]filestate.Expect, len(m))
	for name, snaps := range m {
		for _, s := range snaps {
			out[name] = append(out[name], filestate.Expect(s))
		}
	}
	return out
}

// Snapshots returns the state Resolve captured at each path the proposal changes, keyed
// by the path as authored: the Options.Expected of a later call that must find the files
// exactly as this one saw them (a host that asks a person, then applies what they saw).
func (pr *Proposal) Snapshots() map[string]Snapshot {
	out := make(map[string]Snapshot, len(pr.changes))
	for _, c := range pr.changes {
		out[c.Op.Path] = snapshotOf(c.Base)
	}
	return out
}
