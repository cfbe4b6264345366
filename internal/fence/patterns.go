package fence

import (
	"errors"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch/internal/pathpattern"
	"github.com/applypatch/applypatch/internal/pathwalk"
)

// JournalPrefix starts the name of every commit journal directory at the workspace
// root.
const JournalPrefix = ".applypatch-journal"

// compilePatterns checks and compiles one of the configuration's pattern lists; field
// names the option in errors.
func compilePatterns(field string, list []string) (pathpattern.Set, error) {
	set, err := pathpattern.Compile(list)
	var pe *pathpattern.Error
	switch {
	case !errors.As(err, &pe):
		return set, err
	case errors.Is(pe.Err, pathpattern.ErrEmpty):
		return nil, fmt.Errorf("applypatch: Options.%s has an empty pattern", field)
	}
	return nil, fmt.Errorf("applypatch: Options.%s pattern %q: %w", field, pe.Pattern, pe.Err)
}

// inJournal reports whether a resolved name, given as its folded components (see
// pathpattern.Fold), lies in a commit journal, a directory of the workspace root whose
// name starts with [JournalPrefix]: no payload may read, write or delete there, in any
// mode and whatever the host allows. The rule is fixed, not one of the host's patterns;
// it matches every spelling a case-folding filesystem opens as a journal, as the
// patterns do, and every journal, ours or planted.
func inJournal(components []string) bool {
	for _, c := range components {
		if strings.HasPrefix(c, JournalPrefix) {
			return true
		}
	}
	return false
}

// Rooted reports whether a payload path starts from a filesystem root, as the fence
// reads it: absolute, or (on Windows) starting with a separator.
func Rooted(name string) bool { return pathwalk.Rooted(name) }
