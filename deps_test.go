package applypatch_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is this module's path; the table below names its packages relative to it.
const module = "github.com/applypatch/applypatch"

// allowedImports is the layering, as the packages of this module each package may
// import ("" is the root package). Machinery sits below the facade and imports only
// downward: no internal package imports the root except those above it (the CLI and the
// scripted reviewer), the matcher never reaches the fence or the transaction, and the
// leaves import nothing of the module. A package missing from the table fails the test,
// so a new one is placed in the layering on purpose.
var allowedImports = map[string][]string{
	// Level 0: leaves.
	"internal/show":        nil,
	"internal/fserr":       nil,
	"internal/sysstat":     nil,
	"internal/prefault":    nil,
	"internal/diff":        nil,
	"internal/wslock":      nil,
	"internal/cleanpath":   nil,
	"internal/pathpattern": nil,
	"internal/envelope":    nil,
	"internal/noreplace":   nil,
	"internal/eintr":       nil,
	"internal/dryrun":      nil,
	"internal/crc32c":      nil,
	"internal/turns":       nil,
	// Level 1.
	"internal/lines":    {"internal/prefault", "internal/turns"},
	"internal/pathwalk": {"internal/cleanpath", "internal/sysstat"},
	"internal/splitfs":  {"internal/cleanpath", "internal/noreplace"},
	// Level 2.
	"internal/fence":     {"internal/cleanpath", "internal/fserr", "internal/pathpattern", "internal/pathwalk", "internal/splitfs", "internal/sysstat"},
	"internal/filestate": {"internal/fserr", "internal/prefault"},
	"internal/history":   {"internal/crc32c", "internal/eintr", "internal/fserr"},
	"internal/overlap":   {"internal/splitfs", "internal/turns"},
	"internal/match":     {"internal/diff", "internal/lines", "internal/show", "internal/turns"},
	// Level 3: the transaction, which confines recovery through the fence.
	"internal/txn": {"internal/cleanpath", "internal/crc32c", "internal/fence", "internal/filestate", "internal/fserr", "internal/overlap", "internal/show",
		"internal/splitfs", "internal/sysstat", "internal/turns", "internal/wslock"},
	// The facade.
	"": {"internal/cleanpath", "internal/diff", "internal/dryrun", "internal/envelope", "internal/fence", "internal/filestate", "internal/fserr", "internal/history",
		"internal/lines", "internal/match", "internal/overlap", "internal/prefault", "internal/show", "internal/splitfs", "internal/turns", "internal/txn"},
	// Public helpers beside the facade.
	"fs/rootfs":  {"internal/cleanpath", "internal/eintr", "internal/noreplace", "internal/sysstat", "internal/wslock"},
	"fs/faultfs": {"internal/splitfs"},
	// Above the facade.
	"internal/reviewscript": {""},
	"internal/cli":          {"", "fs/rootfs", "internal/crc32c", "internal/dryrun", "internal/prefault", "internal/reviewscript", "internal/wslock"},
	"cmd/applypatch":        {"internal/cli"},
	// Test helpers.
	"internal/linktree":    nil,
	"internal/statetest":   nil,
	"internal/realpayload": nil,
	"internal/difftool":    {"internal/scriptcmd"},
	"internal/scriptcmd":   nil,
}

// TestLayering checks every package's imports of this module against allowedImports,
// as go list reports them for the build of this platform.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "./...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	seen := map[string]bool{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := relative(p.ImportPath)
		seen[name] = true
		allowed, ok := allowedImports[name]
		if !ok {
			t.Errorf("package %q is not in allowedImports: place it in the layering", name)
			continue
		}
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if dep := relative(imp); !slices.Contains(allowed, dep) {
				t.Errorf("%q imports %q, which the layering does not allow", show(name), show(dep))
			}
		}
	}
	for name := range allowedImports {
		if !seen[name] {
			t.Errorf("allowedImports names %q, which is no package of the module", name)
		}
	}
}

// relative is an import path of this module relative to it, "" for the root.
func relative(importPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(importPath, module), "/")
}

// show names a package in a failure: the root as "applypatch".
func show(name string) string {
	if name == "" {
		return "applypatch"
	}
	return name
}
