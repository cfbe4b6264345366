package history

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// sameAsJSON checks that appendEntry writes the bytes json.Marshal makes of e, or fails
// where it does.
func sameAsJSON(t *testing.T, e *Entry) {
	t.Helper()
	want, werr := json.Marshal(e)
	got, gerr := appendEntry(nil, e)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("appendEntry: error %v, json.Marshal %v", gerr, werr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("appendEntry wrote\n%s\njson.Marshal\n%s", got, want)
	}
}

// oddStrings are texts that json.Marshal escapes, or does not, in every way it can.
var oddStrings = []string{"", "plain", `q"uote`, `back\slash`, "\x00\x01\x1f\x7f", "\b\f\n\r\t", "<a&b>",
	"é ü 中", "😀", "\u2028\u2029", "\u2027\u202a", "\xff", "a\xc3", "\xed\xa0\x80", "\ufffd", "\xef\xbf\xbd\xff",
	"/slash/", "\t\tx := y < z && w > v"}

// TestEncodeEntry: U1, PERF5. An entry is written as json.Marshal writes it: every field
// set and unset, nil and empty lists, and every kind of escape, so that decodeEntry and
// the entries written before read it the same.
func TestEncodeEntry(t *testing.T) {
	sameAsJSON(t, &Entry{})
	body := recorded(t)
	var e Entry
	if err := decodeEntry(body, &e); err != nil {
		t.Fatal(err)
	}
	sameAsJSON(t, &e)
	for _, s := range oddStrings {
		sameAsJSON(t, &Entry{ID: s, Workspace: s, Made: []string{s, ""}, Time: time.Unix(1, 2).In(time.FixedZone("x", 3600)),
			Files: []File{{Path: s, Name: s, From: s, After: State{Edit: []Region{{Ops: []Op{{Kind: '+', Text: s}}}}}}},
			Blobs: []Blob{{File: s}}})
	}
	sameAsJSON(t, &Entry{Files: []File{}, Blobs: []Blob{}, Made: []string{},
		Seq: -1, PayloadBlob: -2, Added: 1 << 40, Removed: -3, Kept: -1 << 62})
	sameAsJSON(t, &Entry{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}) // a year both refuse
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		sameAsJSON(t, randomEntry(r))
	}
}

// randomEntry is an entry of random shape: lists nil, empty or not, numbers of any sign
// and size, and strings drawn from oddStrings or made of random bytes.
func randomEntry(r *rand.Rand) *Entry {
	str := func() string {
		if r.IntN(2) == 0 {
			return oddStrings[r.IntN(len(oddStrings))]
		}
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	}
	num := func() int64 { return r.Int64() >> r.IntN(64) * int64(1-2*r.IntN(2)) }
	n := func() int { return r.IntN(4) - 1 } // -1: a nil list
	list := func(k int) int { return max(k, 0) }
	e := &Entry{ID: str(), Seq: int(num()), Time: time.Unix(num()%1e10, num()%1e9), PayloadBlob: int(num()),
		Added: int(num()), Removed: int(num()), Kept: num(), Workspace: str()}
	if k := n(); k >= 0 {
		e.Made = make([]string, 0, k)
		for range k {
			e.Made = append(e.Made, str())
		}
	}
	state := func() State {
		s := State{Exists: r.IntN(2) == 0, Mode: 0, Size: num(), CRC: uint32(r.Uint64()), Blob: int(num()), Base: int(num()), BOM: r.IntN(4)}
		if r.IntN(2) == 0 {
			s.Mode = 0o644
		}
		if r.IntN(3) == 0 {
			s.Payload = &Span{Off: num(), End: num()}
		}
		if k := n(); k >= 0 {
			s.Edit = make([]Region, list(k))
			for i := range s.Edit {
				s.Edit[i] = Region{Start: int(num()), End: int(num())}
				if k := n(); k >= 0 {
					s.Edit[i].Ops = make([]Op, list(k))
					for j := range s.Edit[i].Ops {
						s.Edit[i].Ops[j] = Op{Kind: byte(r.IntN(256)), Text: str()}
					}
				}
			}
		}
		return s
	}
	if k := n(); k >= 0 {
		e.Files = make([]File, list(k))
		for i := range e.Files {
			e.Files[i] = File{Path: str(), Name: str(), From: str(), Before: state(), After: state()}
		}
	}
	if k := n(); k >= 0 {
		e.Blobs = make([]Blob, list(k))
		for i := range e.Blobs {
			e.Blobs[i] = Blob{Off: num(), Len: num(), CRC: uint32(r.Uint64()), File: str()}
		}
	}
	return e
}

// FuzzEncodeEntry: for any strings and numbers in an entry's fields, appendEntry writes
// what json.Marshal writes.
func FuzzEncodeEntry(f *testing.F) {
	for _, s := range oddStrings {
		f.Add(s, s, int64(len(s)), byte('+'))
	}
	f.Fuzz(func(t *testing.T, a, b string, n int64, kind byte) {
		sameAsJSON(t, &Entry{ID: a, Workspace: b, Seq: int(n), Kept: n, Made: []string{a, b}, Time: time.Unix(n%1e10, 0),
			Files: []File{{Path: a, Name: b, From: a + b, Before: State{Exists: n > 0, Size: n, Mode: 0o600, Blob: int(n)},
				After: State{CRC: uint32(n), Base: int(n), Edit: []Region{{Start: int(n), End: int(-n), Ops: []Op{{Kind: kind, Text: a}, {Kind: kind}}}}}}},
			Blobs: []Blob{{Off: n, Len: -n, CRC: uint32(n >> 3), File: b}}})
	})
}

// BenchmarkEncodeEntry writes the entries of the benchmark's workloads: bigfile's one
// file of 2,000 regions, and manyfiles' 2,000 files of one region each.
func BenchmarkEncodeEntry(b *testing.B) {
	big := Entry{ID: "0123456789ab", Seq: 1, Time: time.Now(), Files: []File{{Path: "big.go", Name: "big.go",
		Before: State{Exists: true, Mode: 0o644, Size: 4300000, CRC: 1, Blob: 0},
		After:  State{Exists: true, Mode: 0o644, Size: 4300000, CRC: 2, Blob: -1}}}}
	for i := range 2000 {
		ops := []Op{{Kind: ' '}, {Kind: ' '}, {Kind: ' '}, {Kind: '-'}, {Kind: '+', Text: "\tx = x*" + strconv.Itoa(i) + " + 1 // changed"}, {Kind: ' '}, {Kind: ' '}}
		big.Files[0].After.Edit = append(big.Files[0].After.Edit, Region{Start: i * 100, End: i*100 + 6, Ops: ops})
	}
	many := manyfilesEntry()
	for _, w := range []struct {
		name string
		e    *Entry
	}{{"bigfile", &big}, {"manyfiles", many}} {
		b.Run(w.name+"/append", func(b *testing.B) {
			for b.Loop() {
				appendEntry(make([]byte, 0, entrySize(w.e)), w.e)
			}
		})
		b.Run(w.name+"/encoding-json", func(b *testing.B) {
			for b.Loop() {
				json.Marshal(w.e)
			}
		})
	}
}

// TestEntrySize: PERF5. The estimate of an entry's length holds the JSON of entries of
// the sizes commits make, with strings that need no escapes, so its buffer is not grown.
func TestEntrySize(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	upTo := func(n int64) int64 { return r.Int64N(n) }
	state := func() State {
		s := State{Exists: true, Mode: 0o100755, Size: upTo(1e10), CRC: uint32(r.Uint64()), Blob: -1, Base: int(upTo(1e5)), BOM: 3}
		if r.IntN(2) == 0 {
			s.Payload = &Span{Off: upTo(1 << 30), End: upTo(1 << 30)}
		}
		for range r.IntN(20) {
			g := Region{Start: int(upTo(1e8)), End: int(upTo(1e8))}
			for range r.IntN(10) {
				g.Ops = append(g.Ops, Op{Kind: '+', Text: "\tx := f(y) // a line of code"[:r.IntN(29)]})
			}
			s.Edit = append(s.Edit, g)
		}
		return s
	}
	for range 200 {
		e := &Entry{ID: "0123456789ab", Seq: int(upTo(1e6)), Time: time.Now(), PayloadBlob: int(upTo(1e5)),
			Added: int(upTo(1e7)), Removed: int(upTo(1e7)), Kept: upTo(1e12), Workspace: "/home/u/src/project", Made: []string{"a/b", "c"}}
		for range r.IntN(50) {
			e.Files = append(e.Files, File{Path: "./pkg/file.go", Name: "pkg/file.go", From: "pkg/old.go", Before: state(), After: state()})
			e.Blobs = append(e.Blobs, Blob{Off: upTo(1e10), Len: upTo(1e10), CRC: uint32(r.Uint64()), File: "b1234"})
		}
		for _, e := range []*Entry{e, {ID: e.ID, Time: e.Time, Blobs: e.Blobs}} { // and the blobs alone
			b, err := appendEntry(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			if n := entrySize(e); len(b) > n {
				t.Fatalf("an entry of %d bytes was estimated at %d", len(b), n)
			}
		}
	}
}
