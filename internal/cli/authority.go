package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/applypatch/applypatch"
)

// authorizer allows the classes the flags allow (F4). Forbidden paths never reach it:
// the library refuses them in every mode.
func (cfg *config) authorizer() applypatch.Authorizer {
	return classFlags{
		{applypatch.ClassOutside, cfg.allowOutside, "--allow-outside"},
		{applypatch.ClassProtected, cfg.allowProtected, "--allow-protected"},
	}
}

// classFlags allow a class of paths each when their flag is set.
type classFlags []struct {
	class   applypatch.Class
	allowed bool
	flag    string
}

// Authorize refuses the paths of a class whose flag is not set, naming the flag. A
// protected path outside the workspace, such as ../.git/hooks/x, needs both flags.
func (fl classFlags) Authorize(_ context.Context, _ applypatch.Mode, paths []applypatch.ClassifiedPath) error {
	var missing []string
	for _, f := range fl {
		if !f.allowed && slices.ContainsFunc(paths, func(p applypatch.ClassifiedPath) bool {
			return p.Class == f.class || (f.class == applypatch.ClassOutside && p.Outside)
		}) {
			missing = append(missing, fmt.Sprintf("%s paths need %s", f.class, f.flag))
		}
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, " and "))
	}
	return nil
}
