//go:build linux

package prefault

import (
	"os"
	"strconv"
	"strings"
)

// minorFaults is the process's count of minor page faults so far.
func minorFaults() (int64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // the fields after the command's name
	n, err := strconv.ParseInt(f[7], 10, 64)                 // minflt is the stat's tenth field
	return n, err == nil
}
