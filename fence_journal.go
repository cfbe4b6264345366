package applypatch

import "strings"

// inJournal reports whether a resolved name, given as its folded components (see
// pathpattern.Fold), lies in a commit journal, a directory of the workspace root whose
// name starts with ".applypatch-journal" (see journalName): no payload may read, write or
// delete there, in any mode and whatever the host allows. The rule is fixed, not one of
// the host's patterns; it matches every spelling a case-folding filesystem opens as a
// journal, as the patterns do, and every journal, ours or planted.
func inJournal(components []string) bool {
	for _, c := range components {
		if strings.HasPrefix(c, journalPrefix) {
			return true
		}
	}
	return false
}
