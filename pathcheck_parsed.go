package applypatch

import (
	"hash/maphash"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// parsedPatches remembers the patches Parse returned, each with the fingerprint of what
// it held then, so that checkPatch knows a patch as Parse's own without writing it as
// payload text and parsing that again: a patch still holding what Parse put in it is
// read back the same by construction. A patch changed since (by a caller, in Go) no
// longer has its fingerprint and gets the whole check. Entries go with their patches.
var parsedPatches sync.Map // weak.Pointer[Patch] → parsedEntry

// parsedEntry is what is remembered of a parsed patch: its fingerprint and the payload
// it was parsed from, which the entry keeps alive (see fingerprint).
type parsedEntry struct {
	sum     uint64
	payload string
}

// fingerprintSeed is chosen at random per process, so no payload can be made to collide.
var fingerprintSeed = maphash.MakeSeed()

// rememberParsed records a patch Parse returns from payload.
func rememberParsed(p *Patch, payload string) {
	key := weak.Make(p)
	parsedPatches.Store(key, parsedEntry{sum: fingerprint(p, payload), payload: payload})
	runtime.AddCleanup(p, func(k weak.Pointer[Patch]) { parsedPatches.Delete(k) }, key)
}

// parsedUnchanged reports whether p is a patch Parse returned, holding what it held then.
func parsedUnchanged(p *Patch) bool {
	v, ok := parsedPatches.Load(weak.Make(p))
	if !ok {
		return false
	}
	e := v.(parsedEntry)
	return e.sum == fingerprint(p, e.payload)
}

// fingerprint hashes every field of a patch, each string with its length, so that no
// two different patches are told apart only by where one string ends. A string whose
// bytes lie inside payload, as Parse's strings do, is hashed as its place there (offset
// and length), not its bytes: strings are immutable and the remembered entry keeps
// payload alive, so no other content can ever be at that place, and the same place
// means the same bytes. Any other string is hashed by its bytes, under another tag: a
// string replaced by an equal one from elsewhere changes the fingerprint, which costs
// the whole check, never a wrong pass.
func fingerprint(p *Patch, payload string) uint64 {
	f := &fingerprinter{payload: payload}
	f.h.SetSeed(fingerprintSeed)
	if len(payload) > 0 {
		f.base = uintptr(unsafe.Pointer(unsafe.StringData(payload)))
	}
	f.num(len(p.Ops))
	for i := range p.Ops {
		op := &p.Ops[i]
		f.str(string(op.Kind))
		f.str(op.Path)
		f.str(op.MoveTo)
		f.num(op.Line)
		f.num(len(op.Lines))
		for _, l := range op.Lines {
			f.str(l)
		}
		f.num(len(op.Hunks))
		for k := range op.Hunks {
			hk := &op.Hunks[k]
			f.str(hk.Anchor)
			f.num(len(hk.Within))
			for _, w := range hk.Within {
				f.str(w)
			}
			f.num(hk.Hint)
			if hk.EOF {
				f.num(1)
			} else {
				f.num(0)
			}
			f.num(hk.Line)
			f.num(len(hk.Lines))
			for _, l := range hk.Lines {
				f.num(int(l.Kind))
				f.str(l.Text)
			}
		}
	}
	return f.sum()
}

// fingerprinter gathers a fingerprint's numbers in words and hashes them a block at a
// time: a patch of 16,000 lines is 64,000 numbers, and a hash call each would cost more
// than the hashing.
type fingerprinter struct {
	h       maphash.Hash
	payload string
	base    uintptr // where payload's bytes start; 0 when it has none
	words   [64]uint64
	n       int
}

// Tags of the two ways a string is hashed.
const (
	fpAt    = iota // its place in the payload
	fpBytes        // its length and bytes
)

func (f *fingerprinter) num(n int) {
	f.words[f.n] = uint64(n)
	if f.n++; f.n == len(f.words) {
		f.flush()
	}
}

func (f *fingerprinter) flush() {
	f.h.Write(unsafe.Slice((*byte)(unsafe.Pointer(&f.words[0])), f.n*8))
	f.n = 0
}

func (f *fingerprinter) str(s string) {
	if at := uintptr(unsafe.Pointer(unsafe.StringData(s))); len(s) > 0 && len(s) <= len(f.payload) &&
		f.base != 0 && at >= f.base && at-f.base <= uintptr(len(f.payload)-len(s)) {
		f.num(fpAt)
		f.num(int(at - f.base))
		f.num(len(s))
		return
	}
	f.num(fpBytes)
	f.num(len(s))
	f.flush()
	f.h.WriteString(s)
}

func (f *fingerprinter) sum() uint64 {
	f.flush()
	return f.h.Sum64()
}
