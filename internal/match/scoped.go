package match

// A scoped view is a hunk's match set seen through its anchors' scope at one tier: the
// starts that lie inside the block (or the section) of some line the anchor names, or
// every start at tierBelow. Blocks nest or are disjoint and sections are disjoint, so a
// question skips from a start outside the tier straight to the next anchor line (or back
// to the last block or section end): it costs a binary search per anchor line or
// candidate passed over, whichever are fewer, never a walk over every candidate (M6,
// PERF4).
type scoped struct {
	ms *matchSet
	sc scope
	t  tier
}

// view returns the closest tier of the scope that holds a start in [lo, hi): a lone
// start below a single anchor line needs no tier, several are narrowed to those inside
// a block, failing that inside a section, failing that all of them. It never
// empties the set.
func (sc scope) view(ms *matchSet, lo, hi int) scoped {
	all := scoped{ms: ms, sc: sc, t: tierBelow}
	if !sc.anchored() || (sc.unique() && !all.several(lo, hi)) {
		return all
	}
	for _, t := range [...]tier{tierBlock, tierSection} {
		if v := (scoped{ms: ms, sc: sc, t: t}); v.first(lo, hi) >= 0 {
			return v
		}
	}
	return all
}

// in reports whether start c lies in the view's tier.
func (v scoped) in(c int) bool {
	return v.t == tierBelow || v.sc.holds(c, v.t)
}

// first returns the lowest start of the view in [lo, hi), or -1.
func (v scoped) first(lo, hi int) int {
	for {
		c := v.ms.first(lo, hi)
		if c < 0 || v.in(c) {
			return c
		}
		j := v.sc.above(c) + 1 // the first anchor line at or below c
		if j >= len(v.sc.at) {
			return -1
		}
		lo = v.sc.at[j].line + 1
	}
}

// last returns the highest start of the view in [lo, hi), or -1.
func (v scoped) last(lo, hi int) int {
	for {
		c := v.ms.last(lo, hi)
		if c < 0 || v.in(c) {
			return c
		}
		i := v.sc.above(c)
		switch {
		case i < 0:
			return -1
		case v.t == tierBlock:
			hi = v.sc.reach[i] + 1 // no block of the anchor lines above c gets further
		default:
			hi = v.sc.at[i].section
		}
	}
}

// several reports whether [lo, hi) holds more than one start of the view.
func (v scoped) several(lo, hi int) bool {
	s := v.first(lo, hi)
	return s >= 0 && v.first(s+1, hi) >= 0
}

// nearest returns the start of the view in [lo, hi) nearest target, or the two
// equidistant ones.
func (v scoped) nearest(lo, hi, target int) []int {
	return nearestOf(v.last(lo, min(hi, target+1)), v.first(max(lo, target+1), hi), target)
}

// list returns the first limit starts of the view in [lo, hi), ascending, and how many
// there are in all, counting at most countBudget; capped reports that the count stopped
// there.
func (v scoped) list(lo, hi, limit int) (out []int, total int, capped bool) {
	for c := v.first(lo, hi); c >= 0; c = v.first(c+1, hi) {
		if total++; total <= limit {
			out = append(out, c)
		} else if total >= countBudget {
			return out, total, true
		}
	}
	return out, total, false
}
