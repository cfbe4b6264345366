package cli

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// encodingAliases are common spellings the IANA registry does not know, mapped to names
// it does. Emacs-style "-unix", "-dos" and "-mac" suffixes are dropped before lookup:
// line endings are the file's own (T2).
var encodingAliases = map[string]string{
	"latin-1":     "ISO-8859-1",
	"iso-latin-1": "ISO-8859-1",
	"latin-9":     "ISO-8859-15",
	"latin9":      "ISO-8859-15",
	"iso-latin-9": "ISO-8859-15",
	"utf8":        "UTF-8",
	"utf16le":     "UTF-16LE",
	"utf16be":     "UTF-16BE",
	"ascii":       "US-ASCII",
	"sjis":        "Shift_JIS",
	"shift-jis":   "Shift_JIS",
	"eucjp":       "EUC-JP",
	"euckr":       "EUC-KR",
	"cp1250":      "windows-1250",
	"cp1251":      "windows-1251",
	"cp1252":      "windows-1252",
	"cp1253":      "windows-1253",
	"cp1254":      "windows-1254",
	"cp1255":      "windows-1255",
	"cp1256":      "windows-1256",
	"cp1257":      "windows-1257",
	"cp1258":      "windows-1258",
}

// lookupEncoding finds an encoding by IANA name or common alias, case-insensitively,
// and returns it with its preferred MIME name ("ISO-8859-1", "Shift_JIS", …).
func lookupEncoding(name string) (encoding.Encoding, string, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, eol := range []string{"-unix", "-dos", "-mac"} {
		key = strings.TrimSuffix(key, eol)
	}
	if alias, ok := encodingAliases[key]; ok {
		key = alias
	}
	enc, err := ianaindex.IANA.Encoding(key)
	if err != nil || enc == nil {
		return nil, "", fmt.Errorf("unknown or unsupported encoding %q; use an IANA name such as ISO-8859-1, windows-1252, Shift_JIS or UTF-16LE", name)
	}
	canonical, err := ianaindex.MIME.Name(enc)
	if err != nil {
		canonical, _ = ianaindex.IANA.Name(enc)
	}
	return enc, canonical, nil
}

// An encodingRule declares the encoding of the paths matching a glob.
type encodingRule struct {
	glob string
	enc  encoding.Encoding
	name string
}

// encodingFlags is the repeatable --encoding GLOB=NAME flag.
type encodingFlags []encodingRule

func (f *encodingFlags) String() string {
	var parts []string
	for _, r := range *f {
		parts = append(parts, r.glob+"="+r.name)
	}
	return strings.Join(parts, " ")
}

// Set parses one GLOB=NAME.
func (f *encodingFlags) Set(s string) error {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return errors.New("want GLOB=NAME, e.g. '*.txt=latin-1'")
	}
	glob, name := s[:i], s[i+1:]
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("bad glob %q: %v", glob, err)
	}
	enc, canonical, err := lookupEncoding(name)
	if err != nil {
		return err
	}
	if enc == unicode.UTF8 {
		enc = nil // plain UTF-8: the library's default
	}
	*f = append(*f, encodingRule{glob: glob, enc: enc, name: canonical})
	return nil
}

// declared returns the Options.Encoding of the rules for a workspace root: the last
// rule whose glob matches a path wins, as in .gitattributes. A glob without a slash
// matches the file name; one with a slash the path relative to the root. The library
// asks with resolved names, so the root is taken both as given and with its symbolic
// links followed.
func (f encodingFlags) declared(root string) func(name string) (encoding.Encoding, string) {
	if len(f) == 0 {
		return nil
	}
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	return func(name string) (encoding.Encoding, string) {
		rel := filepath.ToSlash(relative(roots, name))
		for i := len(f) - 1; i >= 0; i-- {
			subject := rel
			if !strings.Contains(f[i].glob, "/") {
				subject = path.Base(rel)
			}
			if ok, _ := path.Match(f[i].glob, subject); ok {
				return f[i].enc, f[i].name
			}
		}
		return nil, ""
	}
}

// relative is name relative to the first of roots it lies in, or name itself.
func relative(roots []string, name string) string {
	for _, root := range roots {
		if rel, err := filepath.Rel(root, name); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	return name
}
