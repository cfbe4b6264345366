package history

import (
	"strconv"
	"unicode/utf8"
)

// appendEntry appends e's JSON to dst: the bytes json.Marshal makes of it, and its
// error, written without reflection. A commit of a large file records thousands of
// edited regions, and encoding/json spent most of the entry's time finding its way
// through them; the bytes are the same, so decodeEntry reads them as before.
func appendEntry(dst []byte, e *Entry) ([]byte, error) {
	t, err := e.Time.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, e.ID)
	dst = appendInt(append(dst, `,"seq":`...), int64(e.Seq))
	dst = append(append(dst, `,"time":`...), t...)
	dst = appendInt(append(dst, `,"payloadBlob":`...), int64(e.PayloadBlob))
	dst = appendList(append(dst, `,"files":`...), e.Files, appendFile)
	dst = appendInt(append(dst, `,"added":`...), int64(e.Added))
	dst = appendInt(append(dst, `,"removed":`...), int64(e.Removed))
	dst = appendList(append(dst, `,"blobs":`...), e.Blobs, appendBlob)
	if e.Kept != 0 {
		dst = appendInt(append(dst, `,"kept":`...), e.Kept)
	}
	if len(e.Made) > 0 {
		dst = appendList(append(dst, `,"made":`...), e.Made, func(dst []byte, s *string) []byte { return appendString(dst, *s) })
	}
	if e.Workspace != "" {
		dst = appendString(append(dst, `,"workspace":`...), e.Workspace)
	}
	return append(dst, '}'), nil
}

// entrySize is a bound on the length of e's JSON where its strings need few escapes: the
// buffer it is written into is allocated once, rather than grown through twice its size
// in fresh memory (the part of it never written is never touched, so never made
// resident).
func entrySize(e *Entry) int {
	n := 256 + len(e.Workspace)
	for _, b := range e.Blobs {
		n += 72 + len(b.File)
	}
	for _, m := range e.Made {
		n += len(m) + 3
	}
	for i := range e.Files {
		f := &e.Files[i]
		n += 260 + len(f.Path) + len(f.Name) + len(f.From)
		for _, st := range []*State{&f.Before, &f.After} {
			if st.Payload != nil {
				n += 64
			}
			for _, g := range st.Edit {
				n += 48 + 16*len(g.Ops)
				for _, o := range g.Ops {
					n += len(o.Text) + len(o.Text)/8
				}
			}
		}
	}
	return n
}

// appendFile appends a File's JSON.
func appendFile(dst []byte, f *File) []byte {
	dst = appendString(append(dst, `{"path":`...), f.Path)
	dst = appendString(append(dst, `,"name":`...), f.Name)
	if f.From != "" {
		dst = appendString(append(dst, `,"from":`...), f.From)
	}
	dst = appendState(append(dst, `,"before":`...), &f.Before)
	dst = appendState(append(dst, `,"after":`...), &f.After)
	return append(dst, '}')
}

// appendState appends a State's JSON.
func appendState(dst []byte, s *State) []byte {
	dst = append(dst, `{"exists":`...)
	dst = strconv.AppendBool(dst, s.Exists)
	if s.Mode != 0 {
		dst = strconv.AppendUint(append(dst, `,"mode":`...), uint64(s.Mode), 10)
	}
	if s.Size != 0 {
		dst = appendInt(append(dst, `,"size":`...), s.Size)
	}
	if s.CRC != 0 {
		dst = strconv.AppendUint(append(dst, `,"crc":`...), uint64(s.CRC), 10)
	}
	dst = appendInt(append(dst, `,"blob":`...), int64(s.Blob))
	if s.Base != 0 {
		dst = appendInt(append(dst, `,"base":`...), int64(s.Base))
	}
	if s.BOM != 0 {
		dst = appendInt(append(dst, `,"bom":`...), int64(s.BOM))
	}
	if len(s.Edit) > 0 {
		dst = appendList(append(dst, `,"edit":`...), s.Edit, appendRegion)
	}
	if s.Payload != nil {
		dst = appendInt(append(dst, `,"payload":{"off":`...), s.Payload.Off)
		dst = append(appendInt(append(dst, `,"end":`...), s.Payload.End), '}')
	}
	return append(dst, '}')
}

// appendRegion appends a Region's JSON.
func appendRegion(dst []byte, g *Region) []byte {
	dst = appendInt(append(dst, `{"start":`...), int64(g.Start))
	dst = appendInt(append(dst, `,"end":`...), int64(g.End))
	dst = appendList(append(dst, `,"ops":`...), g.Ops, appendOp)
	return append(dst, '}')
}

// appendOp appends an Op's JSON.
func appendOp(dst []byte, o *Op) []byte {
	dst = strconv.AppendUint(append(dst, `{"k":`...), uint64(o.Kind), 10)
	if o.Text != "" {
		dst = appendString(append(dst, `,"t":`...), o.Text)
	}
	return append(dst, '}')
}

// appendBlob appends a Blob's JSON.
func appendBlob(dst []byte, b *Blob) []byte {
	dst = appendInt(append(dst, `{"off":`...), b.Off)
	dst = appendInt(append(dst, `,"len":`...), b.Len)
	dst = strconv.AppendUint(append(dst, `,"crc":`...), uint64(b.CRC), 10)
	if b.File != "" {
		dst = appendString(append(dst, `,"file":`...), b.File)
	}
	return append(dst, '}')
}

// appendList appends a slice as encoding/json does: null when it is nil.
func appendList[E any](dst []byte, list []E, each func([]byte, *E) []byte) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = each(dst, &list[i])
	}
	return append(dst, ']')
}

// appendInt appends n in decimal.
func appendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// appendString appends s as a JSON string, escaped as json.Marshal escapes it: the
// quote, the backslash and the control characters (\b, \f, \n, \r, \t by name), '<',
// '>' and '&' as \u escapes, an invalid byte as \ufffd, and U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if esc := jsonEscapes[b]; esc != "" {
				dst = append(append(dst, s[start:i]...), esc...)
				start = i + 1
			}
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), `\u202`...)
			dst = append(dst, "89"[c-'\u2028'])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// jsonEscapes is how json.Marshal writes each ASCII byte it escapes; "" for the rest.
var jsonEscapes = func() (t [utf8.RuneSelf]string) {
	const hex = "0123456789abcdef"
	for b := range utf8.RuneSelf {
		if b < 0x20 || b == '<' || b == '>' || b == '&' {
			t[b] = `\u00` + string(hex[b>>4]) + string(hex[b&0xf])
		}
	}
	t['"'], t['\\'] = `\"`, `\\`
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = `\b`, `\f`, `\n`, `\r`, `\t`
	return t
}()
