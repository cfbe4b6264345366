package applypatch

import "slices"

// journalDir is the directory, in the workspace root, where a commit keeps what recovery
// needs while it runs (the plan and links to the baselines). It exists only while a
// commit runs or after one was interrupted.
const journalDir = ".applypatch-journal"

// inJournal reports whether a resolved name, given as its folded components (see
// pathpattern.Fold), lies in a commit journal: no payload may read, write or delete there,
// in any mode and whatever the host allows. The rule is fixed, not one of the host's
// patterns; it matches every spelling a case-folding filesystem opens as the journal,
// as the patterns do.
func inJournal(components []string) bool {
	return slices.Contains(components, journalDir)
}
