package history

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeEntry decodes an entry's JSON into e. Entries are read back in the one form
// Record writes them (encoding/json's, without spaces), which a reader of that form
// alone decodes several times faster than encoding/json, whose reflection an undo of
// thousands of files otherwise waits on. Anything else that form would not hold (a
// space, a key in another case or repeated, an escape it does not write, a number
// with a fraction) is handed to encoding/json, as every entry used to be, so the
// result is always what encoding/json would make of the same bytes.
func decodeEntry(body []byte, e *Entry) error {
	r := reader{b: body}
	if r.entry(e) && r.i == len(r.b) {
		return nil
	}
	*e = Entry{}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(e)
}

// A reader decodes the JSON Record writes. Each method reports whether it read what
// it expects; on false the caller gives up and falls back to encoding/json.
type reader struct {
	b []byte
	i int
}

// byte reads c.
func (r *reader) byte(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// literal reads s.
func (r *reader) literal(s string) bool {
	if bytes.HasPrefix(r.b[r.i:], []byte(s)) {
		r.i += len(s)
		return true
	}
	return false
}

// object reads an object whose keys field reads, each key at most once: field reports
// false for a key it does not know, or a value it cannot read. A key's bit in the
// mask is given by field's index in keys.
func (r *reader) object(keys []string, field func(k int) bool) bool {
	if !r.byte('{') {
		return false
	}
	if r.byte('}') {
		return true
	}
	var seen uint64
	for {
		k := r.key(keys)
		if k < 0 || seen&(1<<k) != 0 || !r.byte(':') || !field(k) {
			return false
		}
		seen |= 1 << k
		if r.byte('}') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// key reads a key and returns its index in keys, or -1. Keys are matched exactly:
// encoding/json's other matches (another case) are left to it.
func (r *reader) key(keys []string) int {
	if !r.byte('"') {
		return -1
	}
	end := bytes.IndexByte(r.b[r.i:], '"')
	if end < 0 {
		return -1
	}
	k := r.b[r.i : r.i+end]
	r.i += end + 1
	for n, want := range keys {
		if string(k) == want {
			return n
		}
	}
	return -1
}

// slice reads an array into s, each element by elem, as encoding/json does: null is
// a nil slice, [] an empty one.
func slice[T any](r *reader, s *[]T, elem func(*T) bool) bool {
	if r.literal("null") {
		*s = nil
		return true
	}
	*s = []T{}
	return r.array(func() bool {
		*s = append(*s, *new(T))
		return elem(&(*s)[len(*s)-1])
	})
}

// array reads an array, each element by elem.
func (r *reader) array(elem func() bool) bool {
	if !r.byte('[') {
		return false
	}
	if r.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if r.byte(']') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// number returns the bytes of an integer: an optional minus and digits, no leading
// zero. A fraction or an exponent is left to encoding/json.
func (r *reader) number() []byte {
	start := r.i
	r.byte('-')
	digits := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	n := r.i - digits
	if n == 0 || (n > 1 && r.b[digits] == '0') {
		return nil
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		return nil
	}
	return r.b[start:r.i]
}

// int reads an integer that fits in bits.
func (r *reader) int(v *int64, bits int) bool {
	n, err := strconv.ParseInt(string(r.number()), 10, bits)
	*v = n
	return err == nil
}

// uint reads an unsigned integer that fits in bits.
func (r *reader) uint(v *uint64, bits int) bool {
	n, err := strconv.ParseUint(string(r.number()), 10, bits)
	*v = n
	return err == nil
}

// intTo reads an int into v.
func (r *reader) intTo(v *int) bool {
	var n int64
	ok := r.int(&n, strconv.IntSize)
	*v = int(n)
	return ok
}

// bool reads true or false.
func (r *reader) bool(v *bool) bool {
	switch {
	case r.literal("true"):
		*v = true
	case r.literal("false"):
		*v = false
	default:
		return false
	}
	return true
}

// string reads a string of valid UTF-8 whose escapes are the ones encoding/json
// writes for text (a quote, a backslash, a control character, <, > and &, and the
// line and paragraph separators), each a character of the Basic Multilingual Plane.
func (r *reader) string(v *string) bool {
	if !r.byte('"') {
		return false
	}
	start := r.i
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			raw := r.b[start:r.i]
			r.i++
			if !utf8.Valid(raw) {
				return false
			}
			*v = string(raw)
			return true
		case c == '\\':
			return r.escaped(start, v)
		case c < 0x20:
			return false
		}
		r.i++
	}
	return false
}

// escaped finishes a string that holds an escape, from start, where it began.
func (r *reader) escaped(start int, v *string) bool {
	out := append([]byte(nil), r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			if !utf8.Valid(out) {
				return false
			}
			*v = string(out)
			return true
		case c < 0x20:
			return false
		case c != '\\':
			out = append(out, c)
			r.i++
			continue
		}
		if r.i+1 >= len(r.b) {
			return false
		}
		if e, ok := escapes[r.b[r.i+1]]; ok {
			out = append(out, e)
			r.i += 2
			continue
		}
		if r.b[r.i+1] != 'u' || r.i+6 > len(r.b) {
			return false
		}
		code, err := strconv.ParseUint(string(r.b[r.i+2:r.i+6]), 16, 16)
		if err != nil || (0xd800 <= code && code < 0xe000) { // a surrogate: encoding/json pairs them
			return false
		}
		out = utf8.AppendRune(out, rune(code))
		r.i += 6
	}
	return false
}

// escapes are the two-character escapes of JSON and the bytes they stand for.
var escapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
