package applypatch_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/cli"
	"github.com/applypatch/applypatch/internal/statetest"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata scripts")

func TestMain(m *testing.M) {
	done := statetest.Isolate() // the journal key is kept outside every workspace
	testscript.Main(statetest.Main(m, done), map[string]func(){
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
		Setup: func(env *testscript.Env) error {
			for _, kv := range statetest.Env() {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			return nil
		},
	})
}
