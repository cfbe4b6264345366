package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// errHelp is a request for the usage text (-h, -help, --help): printed on standard
// output, exit 0.
var errHelp = flag.ErrHelp

// printUsage writes the usage text and every flag to w.
func printUsage(w io.Writer, fl *flag.FlagSet) {
	fmt.Fprint(w, usage)
	out := fl.Output()
	fl.SetOutput(w)
	fl.PrintDefaults()
	fl.SetOutput(out)
}

// flagError turns the flag package's error into one line: for an unknown flag, the
// closest defined flag when one is close; always where the flags are listed.
func flagError(fl *flag.FlagSet, err error, args []string) error {
	const seeHelp = "applypatch --help lists the flags"
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !unknown {
		return fmt.Errorf("%v; %s", err, seeHelp)
	}
	name = asTyped(name, args)
	if near := closestFlag(fl, strings.TrimLeft(name, "-")); near != "" {
		return fmt.Errorf("unknown flag %s: did you mean %s? (%s)", name, near, seeHelp)
	}
	return fmt.Errorf("unknown flag %s (%s)", name, seeHelp)
}

// asTyped is the unknown flag name (the flag package spells it "-chek") as the command
// line spelt it ("--chek"): the first argument that is the name with one or two dashes,
// with or without "=VALUE".
func asTyped(name string, args []string) string {
	bare := strings.TrimLeft(name, "-")
	for _, a := range args {
		if a == "--" {
			break
		}
		flagPart, _, _ := strings.Cut(a, "=")
		if flagPart == "-"+bare || flagPart == "--"+bare {
			return flagPart
		}
	}
	return name
}

// closestFlag returns the defined flag nearest to name, spelt as the usage spells it
// ("-C", "--check"), or "" when none is within a third of the name's length in edits
// (at least 1, at most 3, and fewer than the name has letters, so that "-x" suggests
// nothing while "-c" suggests "-C"), or a prefix of one flag only.
func closestFlag(fl *flag.FlagSet, name string) string {
	best, bestDist := "", min(max(1, len(name)/3), 3, max(len(name)-1, 0))+1
	var prefixed []string
	fl.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, name) {
			prefixed = append(prefixed, f.Name)
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(f.Name)); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	if best == "" {
		return ""
	}
	if len(best) == 1 {
		return "-" + best
	}
	return "--" + best
}

// editDistance is the Levenshtein distance between a and b, in bytes: flag names are ASCII.
func editDistance(a, b string) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			prev, row[j] = row[j], min(row[j]+1, row[j-1]+1, prev+cost)
		}
	}
	return row[len(b)]
}

// errNoPayload is a run with no payload argument whose standard input is a terminal:
// waiting there for a payload nobody pipes would look like a hang.
var errNoPayload = errors.New("no payload: give a payload file or the payload itself as the argument, " +
	"or pipe it on standard input (applypatch --help has the details)")

// isTerminal reports whether r is a terminal (a character device), where waiting for a
// payload would look like a hang. A variable, so that tests can stand in for a terminal.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
