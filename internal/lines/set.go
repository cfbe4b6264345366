package lines

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// Set numbers the distinct lines a file is searched for (the hunks' lines,
// normalised) and finds a file line's number in it: most lines of a 200,000-line file,
// which are none of the hunks', are turned away by a small filter that stays in cache,
// from a cheap mix of the line's length and its first and last eight bytes, before the
// line is hashed whole and the table is touched.
type Set struct {
	seed maphash.Seed
	keys []string
	// filter is a Bloom filter of the keys with two probes from quickHash: it never
	// turns a key away, and lets few other lines through (a file that defeats the
	// cheap hash costs a full hash a line, no more).
	filter []uint64
	fmask  uint64
	// slots is an open-addressing table of key numbers plus one (0 is empty), at most
	// half full; tags holds the top bits of each slot's hash, so a probe compares strings
	// only when they very likely match.
	slots []int32
	tags  []uint32
	smask uint64
}

// filterBitsPerKey sizes the filter: with two probes, under 1% of other lines pass.
const filterBitsPerKey = 16

// Len is the number of keys in the set.
func (ls *Set) Len() int { return len(ls.keys) }

// NewSet makes a set with room for n keys.
func NewSet(n int) *Set {
	n = max(n, 4)
	fsize := 1 << bits.Len(uint(n*filterBitsPerKey-1))
	ssize := 1 << bits.Len(uint(2*n-1))
	return &Set{seed: maphash.MakeSeed(), keys: make([]string, 0, n),
		filter: make([]uint64, fsize/64), fmask: uint64(fsize - 1),
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
	q := quickHash(s)
	a, b := q&ls.fmask, (q>>32)&ls.fmask
	ls.filter[a/64] |= 1 << (a % 64)
	ls.filter[b/64] |= 1 << (b % 64)
	return len(ls.keys) - 1
}

// Find returns the number of s, or -1 when it is not in the set.
func (ls *Set) Find(s string) int {
	if !ls.MayHold(quickHash(s)) {
		return -1
	}
	return ls.Lookup(s)
}

// MayHold reports whether the filter lets a line of quickHash q through: false means
// the line is none of the keys. Small enough to be inlined into a loop over a file's
// lines, most of which it turns away.
func (ls *Set) MayHold(q uint64) bool {
	a, b := q&ls.fmask, (q>>32)&ls.fmask
	return ls.filter[a/64]&(1<<(a%64)) != 0 && ls.filter[b/64]&(1<<(b%64)) != 0
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

// quickHash mixes a line's length with its first and last eight bytes: lines of a file
// mostly differ there, and reading them costs two loads where a hash reads every byte.
func quickHash(s string) uint64 {
	n := len(s)
	var x, y uint64
	if n >= 8 {
		x, y = load64(s), load64(s[n-8:])
	} else {
		for i := range n {
			x |= uint64(s[i]) << (8 * i)
		}
	}
	h := x ^ bits.RotateLeft64(y, 29) ^ uint64(n)*0x9e3779b97f4a7c15
	h ^= h >> 33 // the finaliser of MurmurHash3
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// load64 reads the first eight bytes of s, which has at least eight.
func load64(s string) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
}
