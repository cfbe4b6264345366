package applypatch

import (
	"errors"
	"fmt"

	"github.com/applypatch/applypatch/internal/pathpattern"
)

// compilePatterns checks and compiles one of the options' pattern lists
// (Options.Protected, Options.Forbidden, Options.Allow); field names the option in errors.
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
