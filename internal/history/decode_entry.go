package history

import "io/fs"

// The keys of each object of an entry, in the order of their fields.
var (
	entryKeys  = []string{"id", "seq", "time", "payloadBlob", "files", "added", "removed", "blobs", "kept", "made", "workspace"}
	fileKeys   = []string{"path", "name", "from", "before", "after"}
	stateKeys  = []string{"exists", "mode", "size", "crc", "blob", "base", "bom", "edit", "payload"}
	spanKeys   = []string{"off", "end"}
	regionKeys = []string{"start", "end", "ops"}
	opKeys     = []string{"k", "t"}
	blobKeys   = []string{"off", "len", "crc", "file"}
)

// entry reads an Entry.
func (r *reader) entry(e *Entry) bool {
	return r.object(entryKeys, func(k int) bool {
		switch k {
		case 0:
			return r.string(&e.ID)
		case 1:
			return r.intTo(&e.Seq)
		case 2:
			return r.time(e)
		case 3:
			return r.intTo(&e.PayloadBlob)
		case 4:
			return slice(r, &e.Files, r.file)
		case 5:
			return r.intTo(&e.Added)
		case 6:
			return r.intTo(&e.Removed)
		case 7:
			return slice(r, &e.Blobs, r.blob)
		case 8:
			return r.int(&e.Kept, 64)
		case 9:
			return slice(r, &e.Made, r.string)
		default:
			return r.string(&e.Workspace)
		}
	})
}

// time reads the entry's time, as time.Time decodes itself from JSON.
func (r *reader) time(e *Entry) bool {
	start := r.i
	var s string
	if !r.string(&s) {
		return false
	}
	return e.Time.UnmarshalJSON(r.b[start:r.i]) == nil
}

// file reads a File.
func (r *reader) file(f *File) bool {
	return r.object(fileKeys, func(k int) bool {
		switch k {
		case 0:
			return r.string(&f.Path)
		case 1:
			return r.string(&f.Name)
		case 2:
			return r.string(&f.From)
		case 3:
			return r.state(&f.Before)
		default:
			return r.state(&f.After)
		}
	})
}

// state reads a State.
func (r *reader) state(s *State) bool {
	return r.object(stateKeys, func(k int) bool {
		var u uint64
		switch k {
		case 0:
			return r.bool(&s.Exists)
		case 1:
			ok := r.uint(&u, 32)
			s.Mode = fs.FileMode(u)
			return ok
		case 2:
			return r.int(&s.Size, 64)
		case 3:
			ok := r.uint(&u, 32)
			s.CRC = uint32(u)
			return ok
		case 4:
			return r.intTo(&s.Blob)
		case 5:
			return r.intTo(&s.Base)
		case 6:
			return r.intTo(&s.BOM)
		case 7:
			return slice(r, &s.Edit, r.region)
		default:
			s.Payload = &Span{}
			return r.span(s.Payload)
		}
	})
}

// span reads a Span.
func (r *reader) span(sp *Span) bool {
	return r.object(spanKeys, func(k int) bool {
		if k == 0 {
			return r.int(&sp.Off, 64)
		}
		return r.int(&sp.End, 64)
	})
}

// region reads a Region.
func (r *reader) region(g *Region) bool {
	return r.object(regionKeys, func(k int) bool {
		switch k {
		case 0:
			return r.intTo(&g.Start)
		case 1:
			return r.intTo(&g.End)
		default:
			return slice(r, &g.Ops, r.op)
		}
	})
}

// op reads an Op.
func (r *reader) op(o *Op) bool {
	return r.object(opKeys, func(k int) bool {
		if k == 1 {
			return r.string(&o.Text)
		}
		var u uint64
		ok := r.uint(&u, 8)
		o.Kind = byte(u)
		return ok
	})
}

// blob reads a Blob.
func (r *reader) blob(b *Blob) bool {
	return r.object(blobKeys, func(k int) bool {
		var u uint64
		switch k {
		case 0:
			return r.int(&b.Off, 64)
		case 1:
			return r.int(&b.Len, 64)
		case 2:
			ok := r.uint(&u, 32)
			b.CRC = uint32(u)
			return ok
		default:
			return r.string(&b.File)
		}
	})
}
