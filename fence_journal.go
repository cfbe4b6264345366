package applypatch

import "strings"

// journalDir is the directory, in the workspace root, where a commit keeps what recovery
// needs while it runs (the plan and links to the baselines). It exists only while a
// commit runs or after one was interrupted.
const journalDir = ".applypatch-journal"

// inJournal reports whether a resolved name, given as its slash-separated components,
// lies in a commit journal: no payload may read, write or delete there, in any mode and
// whatever the host allows. The rule is fixed, not one of the host's patterns, and
// matches with case folded, as case-folding filesystems do.
func inJournal(components []string) bool {
	for _, c := range components {
		if strings.EqualFold(c, journalDir) {
			return true
		}
	}
	return false
}
