package applypatch

import (
	"encoding/binary"
	"hash/maphash"
	"runtime"
	"sync"
	"weak"
)

// parsedPatches remembers the patches Parse returned, each with the fingerprint of what
// it held then, so that checkPatch knows a patch as Parse's own without writing it as
// payload text and parsing that again: a patch still holding what Parse put in it is
// read back the same by construction. A patch changed since (by a caller, in Go) no
// longer has its fingerprint and gets the whole check. Entries go with their patches.
var parsedPatches sync.Map // weak.Pointer[Patch] → uint64

// fingerprintSeed is chosen at random per process, so no payload can be made to collide.
var fingerprintSeed = maphash.MakeSeed()

// rememberParsed records a patch Parse returns.
func rememberParsed(p *Patch) {
	key := weak.Make(p)
	parsedPatches.Store(key, fingerprint(p))
	runtime.AddCleanup(p, func(k weak.Pointer[Patch]) { parsedPatches.Delete(k) }, key)
}

// parsedUnchanged reports whether p is a patch Parse returned, holding what it held then.
func parsedUnchanged(p *Patch) bool {
	v, ok := parsedPatches.Load(weak.Make(p))
	return ok && v.(uint64) == fingerprint(p)
}

// fingerprint hashes every field of a patch, each string with its length, so that no
// two different patches are told apart only by where one string ends.
func fingerprint(p *Patch) uint64 {
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	var buf [8]byte
	num := func(n int) { // eight bytes, written directly: WriteComparable costs far more
		binary.LittleEndian.PutUint64(buf[:], uint64(n))
		h.Write(buf[:])
	}
	str := func(s string) { num(len(s)); h.WriteString(s) }
	num(len(p.Ops))
	for i := range p.Ops {
		op := &p.Ops[i]
		str(string(op.Kind))
		str(op.Path)
		str(op.MoveTo)
		num(op.Line)
		num(len(op.Lines))
		for _, l := range op.Lines {
			str(l)
		}
		num(len(op.Hunks))
		for k := range op.Hunks {
			hk := &op.Hunks[k]
			str(hk.Anchor)
			num(len(hk.Within))
			for _, w := range hk.Within {
				str(w)
			}
			num(hk.Hint)
			if hk.EOF {
				h.WriteByte(1)
			} else {
				h.WriteByte(0)
			}
			num(hk.Line)
			num(len(hk.Lines))
			for _, l := range hk.Lines {
				h.WriteByte(byte(l.Kind))
				str(l.Text)
			}
		}
	}
	return h.Sum64()
}
