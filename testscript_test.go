package applypatch_test

import (
	"flag"
	"os"
	"testing"

	"github.com/applypatch/applypatch/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"applypatch": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the behaviour scenarios in testdata/: one scenario a file, each named
// for the requirement it covers.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Cmds:                scriptCmds,
	})
}
