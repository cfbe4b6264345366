package applypatch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// orderNames are the paths the order property draws from: nested so that operations
// collide as files and directories.
var orderNames = []string{"a", "b", "a/b", "a/c", "b/a", "a/b/c", "c"}

// genTree writes a random tree of orderNames: each name a file when no file lies above.
func genTree(r *rand.Rand, fsys afero.Fs) {
	for _, n := range orderNames {
		if r.IntN(2) == 0 {
			continue
		}
		blocked := false
		for d := path.Dir(n); d != "."; d = path.Dir(d) {
			if fi, err := fsys.Stat("/ws/" + d); err == nil && !fi.IsDir() {
				blocked = true
			}
		}
		if fi, err := fsys.Stat("/ws/" + n); blocked || err == nil && fi.IsDir() {
			continue
		}
		afero.WriteFile(fsys, "/ws/"+n, []byte("x\n"), 0o644)
	}
}

// genPayload writes 1–4 random operations on distinct orderNames.
func genPayload(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	perm := r.Perm(len(orderNames))
	for _, i := range perm[:1+r.IntN(4)] {
		n := orderNames[i]
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "*** Add File: %s\n+new\n", n)
		case 1:
			fmt.Fprintf(&b, "*** Delete File: %s\n", n)
		case 2:
			fmt.Fprintf(&b, "*** Update File: %s\n@@\n-x\n+y\n", n)
		default:
			fmt.Fprintf(&b, "*** Update File: %s\n*** Move to: %s/m\n", n, orderNames[r.IntN(len(orderNames))])
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestCheckAgreesWithApply generates payloads over generated trees: Check and Apply
// give the same verdict on every one, and a refused Apply writes nothing (X3).
func TestCheckAgreesWithApply(t *testing.T) {
	for _, b := range fsBackends {
		t.Run(b.name, func(t *testing.T) { checkAgrees(t, b, map[string]int{"MemMapFs": 2000}[b.name]+150) })
	}
}

func checkAgrees(t *testing.T, b fsBackend, n int) {
	r := rand.New(rand.NewPCG(8, 3))
	verdicts := map[string]int{}
	for i := range n {
		base, root := b.new(t)
		fsys := afero.NewBasePathFs(base, root)
		fsys.MkdirAll("/ws", 0o755)
		genTree(r, fsys)
		payload := genPayload(r)
		opts := &applypatch.Options{Workspace: "/ws"}
		_, checkErr := applypatch.Check(context.Background(), fsys, payload, opts)
		before := readTree(t, fsys, "/ws")
		_, applyErr := applypatch.Apply(context.Background(), fsys, payload, opts)
		if (checkErr == nil) != (applyErr == nil) {
			t.Fatalf("case %d: Check says %v, Apply says %v\ntree %v\npayload:\n%s", i, checkErr, applyErr, before, payload)
		}
		if applyErr != nil {
			if diff := treeDiff(before, readTree(t, fsys, "/ws")); len(diff) > 0 {
				t.Fatalf("case %d: refused (%v) but changed %v", i, applyErr, diff)
			}
			verdicts["refused"]++
		} else {
			verdicts["applied"]++
		}
	}
	t.Logf("%d payloads: %v", n, verdicts)
}
