package cli

import (
	"errors"
	"runtime/debug"
)

// errVersion is a request for the version (--version): printed on standard output, exit 0.
var errVersion = errors.New("version requested")

// version is the module version the binary was built from ("v1.2.0" when installed with
// go install ...@v1.2.0), else the revision it was built at, else "(devel)".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "(devel)"
	}
	return "(devel) " + rev + dirty
}
