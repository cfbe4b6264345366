package history

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// viaJSON is what encoding/json makes of body, as entries were read before the fast
// reader: the reference decodeEntry must agree with.
func viaJSON(body []byte) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(&e)
	return e, err
}

// sameEntry compares two decoded entries field by field, times by instant and zone.
var sameEntry = cmp.Options{cmpopts.IgnoreUnexported(Entry{}), cmp.Comparer(func(a, b time.Time) bool {
	return a.Equal(b) && a.Location().String() == b.Location().String()
})}

// agree checks that decodeEntry and encoding/json make the same of body, and reports
// whether the fast reader took it without falling back.
func agree(t *testing.T, body []byte) bool {
	t.Helper()
	want, werr := viaJSON(body)
	var got Entry
	gerr := decodeEntry(body, &got)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("decodeEntry(%q): error %v, encoding/json %v", body, gerr, werr)
	}
	if werr == nil {
		if d := cmp.Diff(want, got, sameEntry); d != "" {
			t.Fatalf("decodeEntry(%q) differs from encoding/json (-json +fast):\n%s", body, d)
		}
	}
	r := reader{b: body}
	var e Entry
	return r.entry(&e) && r.i == len(body)
}

// recorded is the JSON Record writes for an entry with a file of each kind, escapes,
// non-ASCII text, a kept content and every optional field set.
func recorded(t testing.TB) []byte {
	e := Entry{ID: "0123456789ab", Seq: 7, Time: time.Date(2026, 12, 5, 7, 0, 0, 123456789, time.UTC), PayloadBlob: 2,
		Files: []File{
			{Path: "a.go", Name: "a.go", Before: State{Exists: true, Mode: 0o644, Size: 9, CRC: 1, Blob: 0},
				After: State{Exists: true, Mode: 0o755, Size: 12, CRC: 4294967295, Blob: -1, Base: 0, BOM: 3,
					Edit: []Region{{Start: 1, End: 3, Ops: []Op{{Kind: ' '}, {Kind: '-'}, {Kind: '+', Text: "\tq := \"<a&b>\" \\ é \u2028 \x01 😀"}}}, {Start: 4, End: 4}}}},
			{Path: "./b/c.txt", Name: "b/c.txt", From: "old.txt", Before: State{Blob: -1}, After: State{Exists: true, Blob: 1}},
			{Path: "d.txt", Name: "d.txt", Before: State{Blob: -1}, After: State{Exists: true, Mode: 0o644, Size: 4, CRC: 9, Blob: -1, Payload: &Span{Off: 3, End: 8}}},
		},
		Added: 3, Removed: 1, Blobs: []Blob{{Off: 0, Len: 9, CRC: 5}, {Off: 9, Len: 0}, {Len: 100, CRC: 7, File: "b0"}}, Kept: 100}
	body, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// U1, PERF5: the form Record writes is read by the fast reader, to the same entry
// encoding/json makes of it; each other form, still valid JSON, falls back and is
// read as before.
func TestDecodeEntryAgreesWithJSON(t *testing.T) {
	body := recorded(t)
	if !agree(t, body) {
		t.Fatalf("the fast reader fell back on Record's own form:\n%s", body)
	}
	for name, edit := range map[string]func(string) string{
		"spaced":       func(s string) string { return strings.Replace(s, `"seq":7`, `"seq": 7`, 1) },
		"other case":   func(s string) string { return strings.Replace(s, `"seq":7`, `"SEQ":7`, 1) },
		"repeated key": func(s string) string { return strings.Replace(s, `"seq":7`, `"seq":7,"seq":8`, 1) },
		"unknown key":  func(s string) string { return strings.Replace(s, `"seq":7`, `"seq":7,"extra":1`, 1) },
		"exponent":     func(s string) string { return strings.Replace(s, `"seq":7`, `"seq":7e0`, 1) },
		"fraction":     func(s string) string { return strings.Replace(s, `"seq":7`, `"seq":7.0`, 1) },
		"null object": func(s string) string {
			return strings.Replace(s, `"before":{"exists":false,"blob":-1}`, `"before":null`, 1)
		},
		"surrogate pair": func(s string) string { return strings.Replace(s, `😀`, `\ud83d\ude00`, 1) },
		"lone surrogate": func(s string) string { return strings.Replace(s, `😀`, `\ud83d`, 1) },
		"bad utf-8":      func(s string) string { return strings.Replace(s, `é`, "\xff", 1) },
		"overflow":       func(s string) string { return strings.Replace(s, `"crc":5`, `"crc":4294967296`, 1) },
		"negative mode":  func(s string) string { return strings.Replace(s, `"mode":493`, `"mode":-1`, 1) },
		"trailing":       func(s string) string { return s + " " },
		"cut short":      func(s string) string { return s[:len(s)-1] },
	} {
		t.Run(name, func(t *testing.T) {
			changed := edit(string(body))
			if changed == string(body) {
				t.Fatalf("the edit changed nothing")
			}
			if agree(t, []byte(changed)) {
				t.Errorf("the fast reader took a form Record does not write:\n%s", changed)
			}
		})
	}
}

// FuzzDecodeEntry: for any bytes, decodeEntry and encoding/json agree: both refuse,
// or both make the same entry.
func FuzzDecodeEntry(f *testing.F) {
	f.Add(recorded(f))
	f.Add([]byte(`{"id":"aaaaaaaaaaaa","seq":1,"files":null,"blobs":[]}`))
	f.Add([]byte(`{"files":[{"before":{"edit":[{"ops":[{"k":43,"t":"\u00e9\n"}]}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		agree(t, body)
	})
}

// manyfilesEntry is the entry of a 2,000-file commit of one hunk a file (the manyfiles
// workload), its baselines kept by link.
func manyfilesEntry() *Entry {
	e := &Entry{ID: "0123456789ab", Seq: 1, Time: time.Now()}
	for i := range 2000 {
		name := "pkg" + strconv.Itoa(i/100) + "/file" + strconv.Itoa(i) + ".go"
		e.Files = append(e.Files, File{Path: name, Name: name,
			Before: State{Exists: true, Mode: 0o644, Size: 3870, CRC: 4069313835, Blob: i},
			After: State{Exists: true, Mode: 0o644, Size: 3874, CRC: 2577812371, Blob: -1, Base: i,
				Edit: []Region{{Start: 9, End: 10, Ops: []Op{{Kind: '-'}, {Kind: '+', Text: "\tx = x*1 + 64 // f0 l9 + 1"}}}}}})
		e.Blobs = append(e.Blobs, Blob{Len: 3870, CRC: 4069313835, File: "b" + strconv.Itoa(i)})
	}
	return e
}

// BenchmarkDecodeEntry decodes the entry of a 2,000-file commit of one hunk a file (the
// manyfiles workload), by the fast reader and by encoding/json.
func BenchmarkDecodeEntry(b *testing.B) {
	e := manyfilesEntry()
	body, _ := json.Marshal(e)
	b.SetBytes(int64(len(body)))
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			var e Entry
			if err := decodeEntry(body, &e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if _, err := viaJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
