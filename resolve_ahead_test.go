package applypatch

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/filestate"
)

// A panic while baselines are read ahead does not bring the process down from a
// goroutine no caller can reach, and does not leave the resolve waiting: the baseline
// it happened on, and those after, are read by the resolve itself (PERF5).
func TestReadAheadPanic(t *testing.T) {
	defer func(n int) { runtime.GOMAXPROCS(n) }(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	fsys := afero.NewMemMapFs()
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range 12 {
		afero.WriteFile(fsys, fmt.Sprintf("/ws/f%d.txt", i), []byte(fmt.Sprintf("a %d\nb %d\n", i, i)), 0o644)
		fmt.Fprintf(&b, "*** Update File: f%d.txt\n@@\n a %d\n-b %d\n+c %d\n", i, i, i, i)
	}
	b.WriteString("*** End Patch\n")
	read := 0
	defer func(f func(*Proposal, *change, filestate.Stamps) (filestate.Baseline, error)) { captureAhead = f }(captureAhead)
	captureAhead = func(pr *Proposal, c *change, stamps filestate.Stamps) (filestate.Baseline, error) {
		if read++; read == 4 {
			panic("reading ahead")
		}
		return pr.captureInto(c, stamps)
	}
	res, err := Apply(context.Background(), fsys, b.String(), &Options{Workspace: "/ws"})
	if err != nil {
		t.Fatalf("Apply: %v\n%s", err, res.Text())
	}
	for i := range 12 {
		if got, _ := afero.ReadFile(fsys, fmt.Sprintf("/ws/f%d.txt", i)); string(got) != fmt.Sprintf("a %d\nc %d\n", i, i) {
			t.Errorf("f%d.txt = %q", i, got)
		}
	}
	if read != 4 {
		t.Errorf("the goroutine read %d baselines, want it stopped at the 4th", read)
	}
}
