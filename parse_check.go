package applypatch

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
	"weak"

	"github.com/applypatch/applypatch/internal/show"
)

// pathProblem says what makes a payload path unusable, or "" when nothing does. A
// control character (U+0000–U+001F, U+007F, U+0080–U+009F) could rewrite a terminal line
// or forge a line of a result, and invalid UTF-8 cannot be shown faithfully, so neither
// is ever a file name the library writes.
func pathProblem(name string) string {
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(name[i:], "\uFFFD"):
			return fmt.Sprintf("the path is not valid UTF-8 (byte %d); name the file in UTF-8", i+1)
		case show.IsControl(r):
			return fmt.Sprintf("the path holds the control character %U (byte %d); name the file with printable characters only", r, i+1)
		}
	}
	return ""
}

// checkPatch refuses a *Patch that no payload could have produced: a path with
// a control character or invalid UTF-8, or any field that [Format] cannot write so that
// [Parse] reads it back the same (a line holding a line break, a path with surrounding
// white space, an anchor that reads as a line hint, two operations on one path…). A
// patch Parse returned passes unchanged.
func checkPatch(p *Patch) error {
	for i := range p.Ops {
		op := &p.Ops[i]
		for _, name := range []string{op.Path, op.MoveTo} {
			if msg := pathProblem(name); msg != "" {
				return &ParseError{Msg: fmt.Sprintf("operation %d (%s %s): %s", i+1, op.Kind, show.Path(op.Path), msg)}
			}
		}
	}
	if parsedUnchanged(p) {
		return nil
	}
	back, err := Parse(Format(p))
	if err != nil {
		return &ParseError{Msg: "the patch cannot be written as payload text: " + err.Error()}
	}
	if len(back.Ops) != len(p.Ops) {
		return &ParseError{Msg: fmt.Sprintf("the patch has %d operations, but its payload text reads as %d", len(p.Ops), len(back.Ops))}
	}
	for i := range p.Ops {
		if what := opDiffers(&p.Ops[i], &back.Ops[i]); what != "" {
			return &ParseError{Msg: fmt.Sprintf("operation %d (%s %s): its %s would read back differently from its payload text; "+
				"build it as Parse would (one line per element, no surrounding white space on paths)", i+1, p.Ops[i].Kind, show.Path(p.Ops[i].Path), what)}
		}
	}
	return nil
}

// opDiffers names the first field of a that b does not hold, payload lines aside.
func opDiffers(a, b *Operation) string {
	switch {
	case a.Kind != b.Kind:
		return "kind"
	case a.Path != b.Path:
		return "path"
	case a.MoveTo != b.MoveTo:
		return "destination"
	case !slices.Equal(a.Lines, b.Lines):
		return "content"
	case len(a.Hunks) != len(b.Hunks):
		return "hunk count"
	}
	for k := range a.Hunks {
		ha, hb := &a.Hunks[k], &b.Hunks[k]
		if ha.Anchor != hb.Anchor || !slices.Equal(ha.Within, hb.Within) || ha.Hint != hb.Hint || ha.EOF != hb.EOF || !slices.Equal(ha.Lines, hb.Lines) {
			return fmt.Sprintf("hunk %d", k+1)
		}
	}
	return ""
}

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
