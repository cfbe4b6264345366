package applypatch

import (
	"bytes"

	"github.com/applypatch/applypatch/internal/diff"
	"github.com/applypatch/applypatch/internal/history"
)

// leastOf is the least regions of a content whose one region replaces every line, where
// they make the very bytes written (size and crc): a line a rewrite kept keeps its own
// line ending, where the rewrite gave every line the file's first one, so a file with
// mixed endings keeps its one region.
func leastOf(c *content, size int64, crc uint32) []region {
	least := leastRegions(c.t.Strings(), c.regs[0].ops)
	var b bytes.Buffer
	b.Write(c.bom)
	writeResult(&b, c.t, least)
	if int64(b.Len()) != size || history.Checksum(b.Bytes()) != crc {
		return c.regs
	}
	return least
}

// leastRegions is the edit that one region replacing every line of a file (a rewrite)
// makes, as the regions a diff of the two finds: an undo then reverts only the lines the
// rewrite changed, and keeps edits made since to the others.
func leastRegions(old []string, whole []Line) []region {
	var now []string
	for _, l := range whole {
		if l.Kind == LineAdd {
			now = append(now, l.Text)
		}
	}
	var regs []region
	open := false
	for _, op := range diff.Lines(old, now) {
		switch {
		case op.Kind == diff.KindContext:
			open = false
			continue
		case !open:
			regs = append(regs, region{start: op.A, end: op.A})
			open = true
		}
		reg := &regs[len(regs)-1]
		if op.Kind == diff.KindRemove {
			reg.ops = append(reg.ops, Line{Kind: LineRemove})
			reg.end = op.A + 1
		} else {
			reg.ops = append(reg.ops, Line{Kind: LineAdd, Text: now[op.B]})
		}
	}
	return regs
}
