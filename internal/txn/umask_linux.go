//go:build linux

package txn

import (
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"sync"
)

// processUmask is this process's file mode creation mask, read once from
// /proc/self/status, which reports it without changing it (setting the mask to read it
// back would race with every other goroutine creating files). ok is false where the
// kernel does not report it.
var processUmask = sync.OnceValues(func() (fs.FileMode, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("Umask:")); ok {
			m, err := strconv.ParseUint(string(bytes.TrimSpace(rest)), 8, 32)
			return fs.FileMode(m) & fs.ModePerm, err == nil
		}
	}
	return 0, false
})
