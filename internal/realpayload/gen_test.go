package realpayload_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

// A payload case: the files before, the payload a model would send, the files the model
// meant (nil when the payload must be refused), and whether a careful reader could tell
// the one place each hunk means.
type payloadCase struct {
	category     string
	before       map[string]string
	payload      string
	want         map[string]string
	determinable bool
}

// categories are the ways models write payloads, each a generator of one case from a
// random file (false when the file offers no such case).
var categories = []struct {
	name string
	gen  func(g *gen, s source) (payloadCase, bool)
}{
	{"clean", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 3}) }},
	{"anchored", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 2, anchor: true}) }},
	{"stacked anchors", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 1, chain: true}) }},
	{"repeated code, anchor decides", func(g *gen, s source) (payloadCase, bool) {
		return g.single(s, editOpts{ctx: 1, anchor: true, repeated: true})
	}},
	{"minimal context", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 0}) }},
	{"whitespace drift", func(g *gen, s source) (payloadCase, bool) {
		return g.single(s, editOpts{ctx: 2, drift: driftWhitespace})
	}},
	{"typographic drift", func(g *gen, s source) (payloadCase, bool) {
		return g.single(s, editOpts{ctx: 2, drift: driftTypographic})
	}},
	{"wrapped (fence, heredoc)", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 2, wrap: true}) }},
	{"stale context (refuse)", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 2, stale: true}) }},
	{"CRLF file", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 2, crlf: true}) }},
	{"multi-hunk", func(g *gen, s source) (payloadCase, bool) { return g.multiHunk(s) }},
	{"multi-file", func(g *gen, s source) (payloadCase, bool) { return g.multiFile(s) }},
	{"unified-diff header", func(g *gen, s source) (payloadCase, bool) { return g.single(s, editOpts{ctx: 2, unified: true}) }},
	{"bare @@ ends the anchors", func(g *gen, s source) (payloadCase, bool) {
		return g.single(s, editOpts{ctx: 1, chain: true, bareAt: true})
	}},
	{"rewrite (Delete, then Add)", func(g *gen, s source) (payloadCase, bool) { return g.rewrite(s) }},
	{"locator, then its closing brace", func(g *gen, s source) (payloadCase, bool) { return g.afterBrace(s) }},
}

type gen struct {
	r      *rand.Rand
	corpus []source
}

type drift int

const (
	driftNone drift = iota
	driftWhitespace
	driftTypographic
)

type editOpts struct {
	ctx      int
	anchor   bool // one "@@" anchor: the header of the block holding the edit
	chain    bool // two: the headers of the two innermost blocks
	repeated bool // only edits whose lines occur more than once in the file
	drift    drift
	wrap     bool
	stale    bool
	crlf     bool
	unified  bool // a unified-diff header "@@ -N,L +N,L @@" heads the hunk
	bareAt   bool // a bare "@@" ends the chain of anchors
}

// an edit is one hunk against a file: the lines it covers and what replaces them.
type edit struct {
	start int      // first covered line
	old   []string // covered lines, as in the file
	neu   []string // what the file holds there after
	body  []string // the hunk's lines, marked
	chain []string
	// header replaces the hunk's "@@" line; bareAt ends its chain with a bare "@@".
	header string
	bareAt bool
}

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{2,}`)

// mutate is how a model changes a line: an identifier renamed.
func mutate(l string) string {
	if loc := word.FindStringIndex(l); loc != nil {
		return l[:loc[1]] + "V2" + l[loc[1]:]
	}
	return l + " // changed"
}

func blank(l string) bool { _, b := indent(l); return b }

// makeEdit picks a line and writes a hunk around it, or reports that none fits.
func (g *gen) makeEdit(s source, o editOpts, from int) (edit, bool) {
	lines, md := s.lines, s.lang == "markdown"
	for try := 0; try < 60; try++ {
		t := from + 3 + g.r.IntN(max(1, len(lines)-from-8))
		if t >= len(lines)-3 || blank(lines[t]) || strings.HasPrefix(strings.TrimSpace(lines[t]), "***") {
			continue
		}
		before, after := o.ctx, o.ctx
		if o.ctx > 0 {
			before, after = 1+g.r.IntN(o.ctx), 1+g.r.IntN(o.ctx)
		}
		e := edit{start: t - before}
		e.old = append([]string(nil), lines[t-before:t+1+after]...)
		kind := g.r.IntN(10)
		for k, l := range e.old {
			switch {
			case k != before:
				e.body = append(e.body, " "+l)
				e.neu = append(e.neu, l)
			case kind < 7 || o.ctx == 0:
				e.body = append(e.body, "-"+l, "+"+mutate(l))
				e.neu = append(e.neu, mutate(l))
			case kind < 9:
				e.body = append(e.body, " "+l, "+"+mutate(l))
				e.neu = append(e.neu, l, mutate(l))
			default:
				e.body = append(e.body, "-"+l)
			}
		}
		if o.repeated && len(occurrences(lines, e.old, ident)) < 2 {
			continue
		}
		if o.anchor || o.chain {
			h := enclosing(lines, t, md)
			if h < 0 || h >= t-before || blockEnd(lines, h, md) < t+after {
				continue // the whole hunk lies in the block, below its header
			}
			e.chain = []string{g.shortForm(lines[h])}
			if o.chain {
				outer := enclosing(lines, h, md)
				if outer < 0 {
					continue
				}
				e.chain = append([]string{g.shortForm(lines[outer])}, e.chain...)
			}
		}
		return e, true
	}
	return edit{}, false
}

// shortForm is how a model names a header: whole, or cut after its name.
func (g *gen) shortForm(h string) string {
	h = strings.TrimRight(h, " \t")
	if g.r.IntN(2) == 0 {
		if i := strings.IndexAny(h, "(:{"); i > 0 && strings.TrimSpace(h[:i]) != "" {
			return strings.TrimSpace(h[:i])
		}
	}
	if g.r.IntN(2) == 0 {
		return strings.TrimSpace(h)
	}
	return h
}

func ident(s string) string { return s }

var typographic = strings.NewReplacer(`"`, "\u201c", "'", "\u2019", " - ", " \u2013 ", "...", "\u2026")

// drifted rewrites a hunk's context and removed lines the way a model misremembers
// them.
func drifted(body []string, d drift) []string {
	out := make([]string, len(body))
	for i, l := range body {
		out[i] = l
		if l == "" || l[0] == '+' {
			continue
		}
		text := l[1:]
		switch d {
		case driftWhitespace:
			if i%2 == 0 {
				if strings.HasPrefix(text, "\t") {
					text = "    " + text[1:]
				}
				text += "  "
			} else {
				text = strings.TrimLeft(text, " \t")
			}
		case driftTypographic:
			text = typographic.Replace(text)
		}
		out[i] = l[:1] + text
	}
	return out
}

// key is how the careful reader compares lines under a drift.
func key(d drift) func(string) string {
	switch d {
	case driftWhitespace:
		return strings.TrimSpace
	case driftTypographic:
		return func(s string) string {
			return strings.TrimSpace(strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2019", "'", "\u2013", "-", "\u2026", "...").Replace(s))
		}
	}
	return ident
}

// apply returns the file with the edits (in order) made.
func apply(lines []string, edits []edit) []string {
	var out []string
	at := 0
	for _, e := range edits {
		out = append(out, lines[at:e.start]...)
		out = append(out, e.neu...)
		at = e.start + len(e.old)
	}
	return append(out, lines[at:]...)
}

// updateSection writes one Update section.
func updateSection(name string, edits []edit, bareBlank bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*** Update File: %s\n", name)
	for _, e := range edits {
		switch {
		case e.header != "":
			b.WriteString(e.header + "\n")
		case len(e.chain) == 0:
			b.WriteString("@@\n")
		}
		for _, a := range e.chain {
			fmt.Fprintf(&b, "@@ %s\n", a)
		}
		if e.bareAt {
			b.WriteString("@@\n")
		}
		for _, l := range e.body {
			if bareBlank && strings.TrimSpace(l) == "" && l != "" && l[0] == ' ' {
				l = ""
			}
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// determinable asks the careful reader whether each edit has one place.
func determinable(s source, edits []edit, k func(string) string) bool {
	cursor := 0
	for _, e := range edits {
		places := readerPlaces(s.lines, occurrences(s.lines, e.old, k), e.chain, cursor, s.lang == "markdown")
		if len(places) != 1 || places[0] != e.start {
			return false
		}
		cursor = e.start + len(e.old)
	}
	return true
}

func join(lines []string, eol string) string { return strings.Join(lines, eol) + eol }

var wrappers = []struct{ open, close string }{
	{"```diff\n", "```\n"}, {"```\n", "```\n"}, {"````patch\n", "````\n"},
	{"cat <<'EOF'\n", "EOF\n"}, {"apply_patch <<\"PATCH\"\n", "PATCH\n"},
}

func (g *gen) single(s source, o editOpts) (payloadCase, bool) {
	e, ok := g.makeEdit(s, o, 0)
	if !ok {
		return payloadCase{}, false
	}
	eol := "\n"
	if o.crlf {
		eol = "\r\n"
	}
	c := payloadCase{before: map[string]string{s.name: join(s.lines, eol)}}
	k := key(o.drift)
	c.determinable = determinable(s, []edit{e}, k)
	c.want = map[string]string{s.name: join(apply(s.lines, []edit{e}), eol)}
	if o.drift != driftNone {
		e.body = drifted(e.body, o.drift)
	}
	if o.unified {
		e.header = fmt.Sprintf("@@ -%d,%d +%d,%d @@", e.start+1, len(e.old), e.start+1, len(e.neu))
	}
	e.bareAt = o.bareAt && len(e.chain) > 0
	if o.stale {
		i := g.r.IntN(len(e.body))
		for ; e.body[i][0] != ' ' && e.body[i][0] != '-'; i = (i + 1) % len(e.body) {
		}
		stale := mutate(e.body[i][1:]) + " /* before */"
		e.body[i] = e.body[i][:1] + stale
		c.want, c.determinable = nil, false
	}
	c.payload = "*** Begin Patch\n" + updateSection(s.name, []edit{e}, g.r.IntN(2) == 0) + "*** End Patch\n"
	if o.wrap {
		w := wrappers[g.r.IntN(len(wrappers))]
		c.payload = w.open + c.payload + w.close
		if g.r.IntN(5) == 0 { // prose around it: must be refused
			c.payload = "Here is the patch:\n\n" + c.payload
			c.want, c.determinable = nil, false
		}
	}
	return c, true
}

func (g *gen) multiHunk(s source) (payloadCase, bool) {
	var edits []edit
	from := 0
	for n := 2 + g.r.IntN(2); len(edits) < n && from < len(s.lines)-20; {
		e, ok := g.makeEdit(s, editOpts{ctx: 2, anchor: g.r.IntN(3) == 0}, from)
		if !ok || (len(edits) > 0 && e.start < from) {
			break
		}
		edits = append(edits, e)
		from = e.start + len(e.old) + 1
	}
	if len(edits) < 2 {
		return payloadCase{}, false
	}
	c := payloadCase{before: map[string]string{s.name: join(s.lines, "\n")}}
	c.determinable = determinable(s, edits, ident)
	c.want = map[string]string{s.name: join(apply(s.lines, edits), "\n")}
	c.payload = "*** Begin Patch\n" + updateSection(s.name, edits, false) + "*** End Patch\n"
	return c, true
}

func (g *gen) multiFile(first source) (payloadCase, bool) {
	files := []source{first}
	for len(files) < 2+g.r.IntN(2) {
		s := g.corpus[g.r.IntN(len(g.corpus))]
		if s.name != files[len(files)-1].name && s.name != first.name {
			files = append(files, s)
		}
	}
	c := payloadCase{before: map[string]string{}, want: map[string]string{}, determinable: true}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for _, s := range files {
		if _, dup := c.before[s.name]; dup {
			return payloadCase{}, false
		}
		e, ok := g.makeEdit(s, editOpts{ctx: 3}, 0)
		if !ok {
			return payloadCase{}, false
		}
		c.before[s.name] = join(s.lines, "\n")
		c.want[s.name] = join(apply(s.lines, []edit{e}), "\n")
		c.determinable = c.determinable && determinable(s, []edit{e}, ident)
		b.WriteString(updateSection(s.name, []edit{e}, false))
	}
	b.WriteString("*** Add File: NOTES.generated.md\n+# Notes\n+\n+Generated.\n")
	c.want["NOTES.generated.md"] = "# Notes\n\nGenerated.\n"
	b.WriteString("*** End Patch\n")
	c.payload = b.String()
	return c, true
}

// rewrite replaces a file whole the way models do: a Delete, then an Add of the same path
// with the new content.
func (g *gen) rewrite(s source) (payloadCase, bool) {
	e, ok := g.makeEdit(s, editOpts{ctx: 2}, 0)
	if !ok {
		return payloadCase{}, false
	}
	neu := apply(s.lines, []edit{e})
	var b strings.Builder
	fmt.Fprintf(&b, "*** Begin Patch\n*** Delete File: %s\n*** Add File: %s\n", s.name, s.name)
	for _, l := range neu {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return payloadCase{before: map[string]string{s.name: join(s.lines, "\n")}, want: map[string]string{s.name: join(neu, "\n")},
		determinable: true, payload: b.String()}, true
}

// afterBrace adds a function after another the way models do: a context-only hunk names
// the function's header line, then a hunk whose only context is its closing brace. The
// reader places it at the brace that closes that header's block when the header line is
// unique below the start of the file and the brace occurs once inside the block.
func (g *gen) afterBrace(s source) (payloadCase, bool) {
	var heads []int
	for i, l := range s.lines {
		if strings.HasSuffix(strings.TrimRight(l, " \t"), "{") && strings.TrimSpace(l) != "{" {
			if j := indentEnd(s.lines, i); j > i && strings.TrimSpace(s.lines[j]) == "}" {
				heads = append(heads, i)
			}
		}
	}
	if len(heads) == 0 {
		return payloadCase{}, false
	}
	h := heads[g.r.IntN(len(heads))]
	end := indentEnd(s.lines, h)
	added := []string{"", "func addedAfter() {", "\treturn", "}"}
	neu := append(append(append([]string{}, s.lines[:end+1]...), added...), s.lines[end+1:]...)
	var b strings.Builder
	fmt.Fprintf(&b, "*** Begin Patch\n*** Update File: %s\n@@\n %s\n@@\n %s\n", s.name, s.lines[h], s.lines[end])
	for _, l := range added {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	headCount, braceIn := 0, 0
	for i, l := range s.lines {
		if l == s.lines[h] {
			headCount++
		}
		if i > h && i <= end && l == s.lines[end] {
			braceIn++
		}
	}
	return payloadCase{before: map[string]string{s.name: join(s.lines, "\n")}, want: map[string]string{s.name: join(neu, "\n")},
		determinable: headCount == 1 && braceIn == 1, payload: b.String()}, true
}
