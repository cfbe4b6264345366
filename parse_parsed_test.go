package applypatch

import (
	"reflect"
	"strings"
	"testing"
)

// TestParsedPatchChangedInGoIsChecked: P14. A patch Parse returned skips the round trip
// through Format only while it holds what Parse put in it; changed in Go so that Format
// could not write it back, it is refused like any Go-built patch.
func TestParsedPatchChangedInGoIsChecked(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@ func f\n a\n-b\n+B\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPatch(p); err != nil {
		t.Fatalf("parsed patch refused: %v", err)
	}
	p.Ops[0].Hunks[0].Lines[1].Text = "b\n+smuggled"
	if err := checkPatch(p); err == nil {
		t.Fatal("a parsed patch with a line break put into a line was accepted")
	}
}

// TestFingerprintCoversEveryField: each field of a patch, operation, hunk and line is
// hashed, so no change in Go keeps a parsed patch's fingerprint. A field added to these
// types fails here until fingerprint hashes it.
func TestFingerprintCoversEveryField(t *testing.T) {
	fresh := func() *Patch {
		return &Patch{Ops: []Operation{{Kind: OpUpdate, Path: "a", MoveTo: "b", Lines: []string{"x"}, Line: 1,
			Hunks: []Hunk{{Anchor: "f", Within: []string{"c"}, Hint: 2, EOF: false, Line: 3, Lines: []Line{{Kind: LineContext, Text: "t"}}}}}}}
	}
	base := fingerprint(fresh(), "")
	change := func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "!")
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Uint8:
			v.SetUint(v.Uint() + 1)
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Slice:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		default:
			t.Fatalf("no change for a field of kind %s", v.Kind())
		}
	}
	fields := func(get func(*Patch) reflect.Value) {
		n := get(fresh()).NumField()
		for i := range n {
			p := fresh()
			f := get(p).Field(i)
			change(f)
			if fingerprint(p, "") == base {
				t.Errorf("changing %s.%s keeps the fingerprint", get(p).Type().Name(), get(p).Type().Field(i).Name)
			}
		}
	}
	fields(func(p *Patch) reflect.Value { return reflect.ValueOf(p).Elem() })
	fields(func(p *Patch) reflect.Value { return reflect.ValueOf(&p.Ops[0]).Elem() })
	fields(func(p *Patch) reflect.Value { return reflect.ValueOf(&p.Ops[0].Hunks[0]).Elem() })
	fields(func(p *Patch) reflect.Value { return reflect.ValueOf(&p.Ops[0].Hunks[0].Lines[0]).Elem() })
}

// TestFingerprintTellsPlacesInThePayload: a parsed patch's strings are fingerprinted by
// their place in the payload. Another string of the payload with the same length, or an
// equal string from elsewhere, changes the fingerprint; a patch so changed gets the
// whole check, which still passes what reads back the same (P14).
func TestFingerprintTellsPlacesInThePayload(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n aa\n-bb\n+cc\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	lines := p.Ops[0].Hunks[0].Lines
	if !parsedUnchanged(p) {
		t.Fatal("a patch as Parse returned it is not known as parsed")
	}
	lines[1].Text = lines[0].Text // "aa", from another place in the payload
	if parsedUnchanged(p) {
		t.Fatal("a line swapped for another of the payload's, of the same length, keeps the fingerprint")
	}
	lines[1].Text = strings.Clone("bb") // the same bytes, from elsewhere
	if parsedUnchanged(p) {
		t.Fatal("a line replaced by an equal string from elsewhere keeps the fingerprint")
	}
	if err := checkPatch(p); err != nil {
		t.Fatalf("a patch that reads back the same is refused: %v", err)
	}
}
