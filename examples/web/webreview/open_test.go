package webreview

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// A patch too big to open entirely opens each file on its first changing hunk; the
// others are folded rows (R4).
func TestOpenOnLoadLargePatch(t *testing.T) {
	fsys := afero.NewMemMapFs()
	var file, hunk1, hunk2 strings.Builder
	for i := range 200 {
		fmt.Fprintf(&file, "line %d\n", i)
	}
	for i := range 50 {
		fmt.Fprintf(&hunk1, "-line %d\n+LINE %d\n", i, i)
		fmt.Fprintf(&hunk2, "-line %d\n+LINE %d\n", 100+i, 100+i)
	}
	afero.WriteFile(fsys, "/ws/big.txt", []byte(file.String()), 0o644)
	afero.WriteFile(fsys, "/ws/small.txt", []byte("a\nb\n"), 0o644)
	payload := "*** Begin Patch\n*** Update File: big.txt\n@@\n" + hunk1.String() + "@@\n" + hunk2.String() +
		"*** Update File: small.txt\n@@\n-a\n+A\n*** End Patch"
	pr, err := applypatch.ResolvePayload(context.Background(), fsys, payload, &applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	s := applypatch.NewSession(pr)
	NewPage(s, NewToken(), PageOptions{})
	open := map[applypatch.Target]bool{}
	for _, r := range s.View().Rows {
		open[r.Target] = !r.Folded
	}
	want := map[applypatch.Target]bool{
		{File: 1}: true, {File: 1, Hunk: 1}: true, {File: 1, Hunk: 2}: false,
		{File: 2}: true, {File: 2, Hunk: 1}: true,
	}
	for tg, w := range want {
		if open[tg] != w {
			t.Errorf("%v open = %v, want %v", tg, open[tg], w)
		}
	}
}
