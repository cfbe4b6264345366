package match

import "github.com/applypatch/applypatch/internal/show"

// Models often repeat the line that locates a hunk as the hunk's first context line:
// "@@ def f():" then " def f():", or a locator hunk whose last line opens the next hunk.
// They mean that very line. A hunk must lie strictly below its anchor, so for an anchor
// the repeat is refused wherever the hunk also lies lower down (it would land on another
// copy); after a locator, the hunk starts on the locator's last line, unless its lines lie
// elsewhere at a stricter pass of the ladder.

// repeats returns the first few lines of starts where the hunk's lines lie, at the first
// pass of the ladder that finds any, when its first line is a context line, and how many
// more there are (counting at most countBudget; capped reports that the count stopped).
// Each start costs a binary search in the hunk's match set, so an anchor naming many
// lines never makes a scan of the file per line.
func (pl *Placer) repeats(h Hunk, old []string, starts []int) (found []int, more int, capped bool, p Pass) {
	if k, _ := h.LineAt(0); k != Context {
		return nil, 0, false, 0
	}
	eofStart := -1
	if h.AtEOF() {
		eofStart = pl.t.Count() - len(old)
	}
	var ms matchSet
	for _, p := range passes {
		pl.idx.matches(&ms, old, p, eofStart)
		for _, s := range starts {
			switch {
			case ms.first(s, s+1) != s:
			case len(found) < Listed:
				found = append(found, s)
			case len(found)+more >= countBudget:
				return found, more, true, p
			default:
				more++
			}
		}
		if len(found) > 0 {
			return found, more, false, p
		}
	}
	return nil, 0, false, 0
}

// afterLocator places a hunk whose lines start on the last line of the locator placed
// just before it, at the pass that finds them there; ok is false when they do not. The
// caller weighs that pass against where the ordinary search puts the hunk.
func (pl *Placer) afterLocator(h Hunk, old []string, sc scope) (Place, bool) {
	if sc.anchored() || pl.locator < 0 {
		return Place{}, false
	}
	found, _, _, p := pl.repeats(h, old, []int{pl.locator})
	if len(found) == 0 {
		return Place{}, false
	}
	return Place{Start: found[0], Len: len(old), Pass: p}, true
}

// onAnchor refuses a hunk placed at got, below its anchor, whose lines also start on a
// line the anchor names: the hunk names that line, not got. Where got is itself such a
// line (of an anchor naming several, the one the hunk settles), the two agree.
func (pl *Placer) onAnchor(h Hunk, old []string, sc scope, got Place) *Miss {
	if !sc.anchored() || sc.names(got.Start) {
		return nil
	}
	found, more, capped, p := pl.repeats(h, old, sc.lines())
	if len(found) == 0 {
		return nil
	}
	err := &Miss{Reason: OnAnchor, Pass: p, HunkLines: []int{got.Line()}}
	err.Lines, err.More, err.MoreCapped = show.OneBased(found), more, capped
	return err
}
