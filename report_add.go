package applypatch

import "unsafe"

// addedText is an Add's diff, each of its lines after a '+' and joined by newlines, as
// the payload's own text, when the payload spells the section that way (every line ended
// by a line feed alone): a large Add is then not copied a second time for its diff, which
// shares the payload's memory, as its lines do. The section is found from where its lines
// lie in the payload and checked byte for byte.
func addedText(payload string, lines []string) (string, bool) {
	k := 0 // the first line that is not empty: an empty string says nothing of where it lies
	for k < len(lines) && lines[k] == "" {
		k++
	}
	if k == len(lines) {
		return "", false
	}
	off := int(uintptr(unsafe.Pointer(unsafe.StringData(lines[k]))) - uintptr(unsafe.Pointer(unsafe.StringData(payload))))
	for _, l := range lines[:k] {
		off -= len(l) + 2 // the line, its newline and the next line's '+'
	}
	size := -1
	for _, l := range lines {
		size += len(l) + 2
	}
	if off < 1 || off-1+size > len(payload) {
		return "", false
	}
	text := payload[off-1 : off-1+size]
	return text, spells(text, lines)
}

// spells reports whether text is the lines, each after a '+', joined by newlines.
func spells(text string, lines []string) bool {
	for i, l := range lines {
		if text[0] != '+' || text[1:1+len(l)] != l {
			return false
		}
		text = text[1+len(l):]
		if i < len(lines)-1 {
			if text[0] != '\n' {
				return false
			}
			text = text[1:]
		}
	}
	return true
}
