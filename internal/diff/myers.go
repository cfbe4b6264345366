package diff

import "hash/maphash"

// myersLimit is the most edits one split of the Myers search explores before it settles
// for the furthest point reached: enough for the whole comparison to stay minimal while
// (N+M)·D is under myersBudget, and never less than myersMinLimit, so the total work is
// about (N+M)·limit.
func myersLimit(n int) int { return max(myersMinLimit, myersBudget/max(n, 1)) }

const (
	myersMinLimit = 128
	myersBudget   = 1 << 24
)

// commonPrefixLines returns the number of leading lines a and b share.
func commonPrefixLines(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// commonSuffixLines returns the number of trailing lines a and b share.
func commonSuffixLines(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// markMinimalChanges sets ca and cb to a minimal set of removed lines of a and inserted
// lines of b. Lines that appear in only one side can never be kept, so they are marked at
// once and the search runs on the others.
func markMinimalChanges(a, b []string, ca, cb []bool) {
	ia, ib, n := internLines(a, b)
	inA, inB := make([]bool, n), make([]bool, n)
	for _, id := range ia {
		inA[id] = true
	}
	for _, id := range ib {
		inB[id] = true
	}
	d := myersDiffer{ca: ca, cb: cb, limit: myersLimit(len(a) + len(b))}
	d.a, d.ia = keepSharedLines(ia, inB, ca)
	d.b, d.ib = keepSharedLines(ib, inA, cb)
	d.compare(0, len(d.a), 0, len(d.b))
}

// internLines maps each distinct line of a and b to a small int, numbered in order of
// first appearance, returning the id sequences and the number of ids.
func internLines(a, b []string) (ia, ib []int, n int) {
	t := newLineInterner(len(a) + len(b))
	ia, ib = make([]int, len(a)), make([]int, len(b))
	for i, s := range a {
		ia[i] = t.id(s)
	}
	for i, s := range b {
		ib[i] = t.id(s)
	}
	return ia, ib, len(t.lines)
}

// lineInterner is an open-addressing hash set of lines, faster than a map[string]int for
// hundreds of thousands of lines. Since ids follow the order of first appearance, the
// random hash seed never shows in the result.
type lineInterner struct {
	seed   maphash.Seed
	slots  []int32  // id+1 of the line in each slot, 0 when empty; a power of two long
	hashes []uint64 // hash of each id's line
	lines  []string // line of each id
}

// newLineInterner returns a lineInterner sized for up to n distinct lines.
func newLineInterner(n int) *lineInterner {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &lineInterner{
		seed:   maphash.MakeSeed(),
		slots:  make([]int32, size),
		hashes: make([]uint64, 0, n),
		lines:  make([]string, 0, n),
	}
}

// id returns the id of s, adding it when new.
func (t *lineInterner) id(s string) int {
	h := maphash.String(t.seed, s)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			t.slots[i] = int32(len(t.lines) + 1)
			t.hashes = append(t.hashes, h)
			t.lines = append(t.lines, s)
			return len(t.lines) - 1
		}
		if id := int(slot - 1); t.hashes[id] == h && t.lines[id] == s {
			return id
		}
	}
}

// keepSharedLines returns the ids whose line also occurs in the other side (present[id]) and
// their indexes in ids; every other line is marked in changed.
func keepSharedLines(ids []int, present, changed []bool) (kept, index []int) {
	kept, index = make([]int, 0, len(ids)), make([]int, 0, len(ids))
	for i, id := range ids {
		if present[id] {
			kept = append(kept, id)
			index = append(index, i)
		} else {
			changed[i] = true
		}
	}
	return kept, index
}

// myersDiffer holds the state of one Myers search.
type myersDiffer struct {
	// a and b are the interned lines being compared.
	a, b []int
	// ia and ib map positions in a and b to indexes into ca and cb.
	ia, ib []int
	// ca and cb receive the changed flags.
	ca, cb []bool
	// fwd and bwd are the furthest-reaching x per diagonal of the two searches.
	fwd, bwd diagVec
	// limit is the most edits one split explores (myersLimit).
	limit int
	// steps counts the diagonals explored, for tests that bound the work.
	steps int
}

// compare marks a minimal set of changes turning a[aLo:aHi] into b[bLo:bHi].
func (d *myersDiffer) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		aLo++
		bLo++
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi--
		bHi--
	}
	switch {
	case aLo == aHi:
		for j := bLo; j < bHi; j++ {
			d.cb[d.ib[j]] = true
		}
	case bLo == bHi:
		for i := aLo; i < aHi; i++ {
			d.ca[d.ia[i]] = true
		}
	default:
		x, y := d.middle(aLo, aHi, bLo, bHi)
		if (x == aLo && y == bLo) || (x == aHi && y == bHi) { // no progress: all changed
			d.markAll(aLo, aHi, bLo, bHi)
			return
		}
		d.compare(aLo, x, bLo, y)
		d.compare(x, aHi, y, bHi)
	}
}

// markAll marks every line of both ranges changed: a correct, if long, edit script.
func (d *myersDiffer) markAll(aLo, aHi, bLo, bHi int) {
	for i := aLo; i < aHi; i++ {
		d.ca[d.ia[i]] = true
	}
	for j := bLo; j < bHi; j++ {
		d.cb[d.ib[j]] = true
	}
}

// furthest returns the point of the forward search (after D edits) furthest from the
// start, relative to it: the split of a search that hit its cost limit.
func (d *myersDiffer) furthest(D, n, m int) (x, y int) {
	best := -1
	for k := -D; k <= D; k += 2 {
		if k < -m || k > n {
			continue
		}
		fx := d.fwd.at(k)
		if fy := fx - k; fx+fy > best && fy >= 0 && fy <= m {
			best, x, y = fx+fy, fx, fy
		}
	}
	return x, y
}

// middle returns a point (x, y) on a shortest edit path from (aLo, bLo) to (aHi, bHi)
// that splits it into two paths of about half its cost, each of at least one edit. It
// needs both ranges non-empty and differing in their first and last lines.
//
// Points are relative to (aLo, bLo); diagonal k holds the points with x-y == k. The
// forward search keeps, per diagonal, the largest x reachable from the start with at most
// D edits; the backward search the smallest x from which the end is reachable with at most
// D edits. Along a diagonal the cost from the start never decreases and the cost to the
// end never increases, so those sets are intervals and the bounds can be clamped to the
// rectangle. The searches meet after about half the total cost.
func (d *myersDiffer) middle(aLo, aHi, bLo, bHi int) (x, y int) {
	n, m := aHi-aLo, bHi-bLo
	delta := n - m
	odd := delta&1 != 0
	for D := 0; ; D++ {
		if D > d.limit {
			x, y := d.furthest(D-1, n, m)
			return aLo + x, bLo + y
		}
		d.fwd.reserve(D)
		d.bwd.reserve(D)
		for k := -D; k <= D; k += 2 {
			if k < -m || k > n {
				continue
			}
			d.steps++
			x := d.forwardStart(k, D, n, m)
			y := x - k
			for x < n && y < m && d.a[aLo+x] == d.b[bLo+y] {
				x++
				y++
			}
			d.fwd.set(k, x)
			if odd && k-delta >= 1-D && k-delta <= D-1 && x >= d.bwd.at(k-delta) {
				return aLo + x, bLo + y
			}
		}
		for c := -D; c <= D; c += 2 {
			k := c + delta
			if k < -m || k > n {
				continue
			}
			x := d.backwardStart(k, c, D, n, m)
			y := x - k
			for x > 0 && y > 0 && d.a[aLo+x-1] == d.b[bLo+y-1] {
				x--
				y--
			}
			d.bwd.set(c, x)
			if !odd && k >= -D && k <= D && x <= d.fwd.at(k) {
				return aLo + x, bLo + y
			}
		}
	}
}

// forwardStart returns the largest x on diagonal k reachable with D edits before the
// snake: one step right from diagonal k-1 or down from diagonal k+1 (as searched with D-1
// edits), clamped to the n×m rectangle.
func (d *myersDiffer) forwardStart(k, D, n, m int) int {
	if D == 0 {
		return 0
	}
	x := -1
	if k > -D && k-1 >= -m {
		x = min(d.fwd.at(k-1)+1, n)
	}
	if k < D && k+1 <= n {
		x = max(x, min(d.fwd.at(k+1), m+k))
	}
	return x
}

// backwardStart returns the smallest x on diagonal k (c == k-delta) from which the end is
// reachable with D edits after the snake: one step left onto diagonal k+1 or up onto
// diagonal k-1 (as searched with D-1 edits), clamped to the rectangle.
func (d *myersDiffer) backwardStart(k, c, D, n, m int) int {
	if D == 0 {
		return n
	}
	x := n + 1
	if c < D && k+1 <= n {
		x = max(d.bwd.at(c+1)-1, 0)
	}
	if c > -D && k-1 >= -m {
		x = min(x, max(d.bwd.at(c-1), k))
	}
	return x
}

// diagVec is a slice indexed by diagonal, from -off to off, that grows on demand so that the
// space used follows the edit distance rather than the input size.
type diagVec struct {
	v   []int
	off int
}

// reserve makes diagonals -d..d addressable, keeping the values already stored.
func (v *diagVec) reserve(d int) {
	if v.v != nil && d <= v.off {
		return
	}
	off := max(2*v.off, d, 16)
	nv := make([]int, 2*off+1)
	if v.v != nil {
		copy(nv[off-v.off:], v.v)
	}
	v.v, v.off = nv, off
}

// at returns the value stored for diagonal k.
func (v *diagVec) at(k int) int { return v.v[k+v.off] }

// set stores x for diagonal k.
func (v *diagVec) set(k, x int) { v.v[k+v.off] = x }
