package lines

import (
	"hash/maphash"
	"math/bits"
)

// Set numbers the distinct lines a file is searched for (the hunks' lines,
// normalised) and finds a file line's number in it: most lines of a 200,000-line file,
// which are none of the hunks', are turned away by a small filter that stays in cache,
// from a cheap mix of the line's length and its first and last eight bytes, before the
// line is hashed whole and the table is touched.
type Set struct {
	seed maphash.Seed
	keys []string
	// filter is a Bloom filter of the keys with two probes in one word (see probes): it
	// never turns a key away, and lets few other lines through (a file that defeats the
	// cheap mix costs a full hash a line, no more). It has 1<<(64-fshift) words.
	filter []uint64
	fshift uint
	// slots is an open-addressing table of key numbers plus one (0 is empty), at most
	// half full; tags holds the top bits of each slot's hash, so a probe compares strings
	// only when they very likely match.
	slots []int32
	tags  []uint32
	smask uint64
}

// filterBitsPerKey sizes the filter: with two probes in one word, under one in a hundred
// of the other lines pass.
const filterBitsPerKey = 32

// Len is the number of keys in the set.
func (ls *Set) Len() int { return len(ls.keys) }

// NewSet makes a set with room for n keys.
func NewSet(n int) *Set {
	n = max(n, 4)
	fbits := max(bits.Len(uint(n*filterBitsPerKey-1)), 6) - 6 // in words
	ssize := 1 << bits.Len(uint(2*n-1))
	return &Set{seed: maphash.MakeSeed(), keys: make([]string, 0, n),
		filter: make([]uint64, 1<<fbits), fshift: uint(64 - fbits),
		slots: make([]int32, ssize), tags: make([]uint32, ssize), smask: uint64(ssize - 1)}
}

// Add adds s, if new, and returns its number.
func (ls *Set) Add(s string) int {
	h := maphash.String(ls.seed, s)
	i, found := ls.Probe(s, h)
	if found {
		return int(ls.slots[i]) - 1
	}
	if 2*(len(ls.keys)+1) > len(ls.slots) {
		ls.grow()
		i, _ = ls.Probe(s, h)
	}
	ls.keys = append(ls.keys, s)
	ls.slots[i], ls.tags[i] = int32(len(ls.keys)), uint32(h>>32)
	x, y := words(s, 0, len(s))
	w, m := ls.probes(x, y, len(s))
	ls.filter[w] |= m
	return len(ls.keys) - 1
}

// Find returns the number of s, or -1 when it is not in the set.
func (ls *Set) Find(s string) int {
	if !ls.passes(s, 0, len(s)) {
		return -1
	}
	return ls.Lookup(s)
}

// passes reports whether the filter lets the line s[lo:hi] through: false means it is
// none of the keys. A loop over a file's lines, most of which the filter turns away,
// writes it out with holds, which is inlined where this is too large to be.
func (ls *Set) passes(s string, lo, hi int) bool {
	x, y := words(s, lo, hi)
	return ls.holds(ls.probes(x, y, hi-lo))
}

// holds reports whether the filter has both bits m of its word w (see probes).
func (ls *Set) holds(w, m uint64) bool { return ls.filter[w]&m == m }

// probes are the word of the filter a line of n bytes answers for and the two bits of
// it, from x and y, its first and last eight bytes (see words): a mix of the three, a
// sum of products, whose top bits pick the word and bits 36 to 47 the two bits (bits
// the word's do not include up to 65,536 words). A bit of a product depends on every
// bit of its factors at or below it, so the word depends on every byte of the line's
// ends; lines of a file mostly differ in their last bytes.
func (ls *Set) probes(x, y uint64, n int) (w, m uint64) {
	h := x*0x9e3779b97f4a7c15 ^ y*0xc2b2ae3d27d4eb4f ^ uint64(n)*0x165667b19e3779f9
	return h >> ls.fshift, 1<<(h>>42&63) | 1<<(h>>36&63)
}

// Lookup is [Set.Find] past the filter: the number of s in the table, or -1.
func (ls *Set) Lookup(s string) int {
	if i, found := ls.Probe(s, maphash.String(ls.seed, s)); found {
		return int(ls.slots[i]) - 1
	}
	return -1
}

// Probe returns the slot holding s, or the empty slot where it would go.
func (ls *Set) Probe(s string, h uint64) (int, bool) {
	tag := uint32(h >> 32)
	for i := h & ls.smask; ; i = (i + 1) & ls.smask {
		id := ls.slots[i]
		if id == 0 {
			return int(i), false
		}
		if ls.tags[i] == tag && ls.keys[id-1] == s {
			return int(i), true
		}
	}
}

// grow doubles the table; keys keep their numbers.
func (ls *Set) grow() {
	n := 2 * len(ls.slots)
	ls.slots, ls.tags, ls.smask = make([]int32, n), make([]uint32, n), uint64(n-1)
	for k, s := range ls.keys {
		h := maphash.String(ls.seed, s)
		i, _ := ls.Probe(s, h)
		ls.slots[i], ls.tags[i] = int32(k+1), uint32(h>>32)
	}
}
