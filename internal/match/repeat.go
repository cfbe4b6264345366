package match

// Models often repeat the line that locates a hunk as the hunk's first context line:
// "@@ def f():" then " def f():", or a locator hunk whose last line opens the next hunk.
// They mean that very line. A hunk must lie strictly below its anchor, so for an anchor
// the repeat is refused wherever the hunk also lies lower down (it would land on another
// copy); after a locator, the hunk starts on the locator's last line.

// repeats returns the lines of starts where the hunk's lines lie, at the first pass of
// the ladder that finds any, when its first line is a context line.
func (pl *Placer) repeats(h Hunk, old []string, starts []int) ([]int, Pass) {
	if k, _ := h.LineAt(0); k != Context {
		return nil, 0
	}
	for _, p := range passes {
		var found []int
		for _, s := range starts {
			if pl.linesAt(old, s, p) && (!h.AtEOF() || s+len(old) == pl.t.Count()) {
				found = append(found, s)
			}
		}
		if len(found) > 0 {
			return found, p
		}
	}
	return nil, 0
}

// afterLocator places a hunk whose lines start on the last line of the locator placed
// just before it; ok is false when they do not.
func (pl *Placer) afterLocator(h Hunk, old []string, sc scope) (Place, bool) {
	if sc.anchored() || pl.locator < 0 {
		return Place{}, false
	}
	found, p := pl.repeats(h, old, []int{pl.locator})
	if len(found) == 0 {
		return Place{}, false
	}
	return Place{Start: found[0], Len: len(old), Pass: p}, true
}

// onAnchor refuses a hunk placed at got, below its anchor, whose lines also start on a
// line the anchor names: the hunk names that line, not got.
func (pl *Placer) onAnchor(h Hunk, old []string, sc scope, got Place) *Miss {
	if !sc.anchored() {
		return nil
	}
	found, p := pl.repeats(h, old, sc.lines())
	if len(found) == 0 {
		return nil
	}
	err := &Miss{Reason: OnAnchor, Pass: p, HunkLines: []int{got.Line()}}
	err.Lines, err.More, err.MoreCapped = firstFew(found, 0, false)
	return err
}

// linesAt reports whether old lies in the text starting at line s, compared at pass p.
func (pl *Placer) linesAt(old []string, s int, p Pass) bool {
	if s < 0 || s+len(old) > pl.t.Count() {
		return false
	}
	norm := normalize[p]
	for i, l := range old {
		if norm(pl.t.Line(s+i)) != norm(l) {
			return false
		}
	}
	return true
}
