package main

import (
	"errors"
	"flag"
	"io"
	"runtime/debug"
)

// parseHelp parses args; a request for help prints the usage on stdout, as every
// applypatch command does, and is returned as flag.ErrHelp.
func parseHelp(fl *flag.FlagSet, args []string, stdout io.Writer) error {
	usage := fl.Usage
	fl.Usage = func() {}
	err := fl.Parse(args)
	fl.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		out := fl.Output()
		fl.SetOutput(stdout)
		fl.Usage()
		fl.SetOutput(out)
	case err != nil:
		fl.Usage()
	}
	return err
}

// buildVersion is the module version the binary was built from, else "(devel)".
func buildVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
