// Command applypatch applies a "*** Begin Patch" payload to a directory as one
// all-or-nothing transaction.
//
// Usage:
//
//	applypatch [flags] [PAYLOAD_FILE | PAYLOAD]
//
// The payload comes from PAYLOAD_FILE, from the first argument itself when it starts with
// "*** Begin Patch", or from standard input. It prints the result the model would see on
// standard output, success or failure; standard error carries only diagnostics.
//
// Exit status: 0 applied (or a revision was requested), 1 rejected with nothing written,
// 2 usage error, 3 a failed commit whose rollback was incomplete.
package main

import (
	"os"
	"runtime/debug"

	"github.com/applypatch/applypatch/internal/cli"
)

func main() {
	collectLess()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// collectLess has the collector run a tenth as often as by default, below a soft
// memory limit: a run lives for one patch, and a commit of thousands of small files
// otherwise spends a fifth of its time collecting garbage it would free by exiting, and
// one of a thousand new files allocates seven times what it holds after the heap is made
// resident. The limit keeps the heap of a large payload bounded all the same. GOGC and
// GOMEMLIMIT in the environment take precedence.
func collectLess() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(1000)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}
