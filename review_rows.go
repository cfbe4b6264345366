package applypatch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/show"
)

// selectionGlyphs draw how much of a row is selected: nothing, some or all of it.
var selectionGlyphs = [...]string{"✗", "◐", "✓"}

// glyph computes Row.Glyph.
func (r Row) glyph() string {
	switch {
	case r.Selected == 0:
		return selectionGlyphs[0]
	case r.Selected < r.Total:
		return selectionGlyphs[1]
	}
	return selectionGlyphs[2]
}

// isHunk reports whether the row is a hunk row rather than an operation's.
func (r Row) isHunk() bool { return r.Target.Hunk > 0 }

// A Row is one line of the review's list: an operation, or under an expanded Update
// one of its changing hunks. Rows are computed for every [View] and carry everything a
// front end renders; [Row.String] renders the row line itself.
type Row struct {
	// Target names the row in requests: its operation, and its hunk for a hunk row
	// (Target.Hunk > 0 only on a hunk row).
	Target Target
	// Status is the operation's letter: "A" add, "M" update, "D" delete, "R" move.
	Status string
	// Path is the path as authored; "OLD → NEW" for a Move.
	Path string
	// Label is a hunk row's label: its "@@" anchor, else the section heading above
	// it, else "~N" for its baseline line; at most 48 columns.
	Label string
	// Selected and Total count the row's selected and total changes: a file row of an
	// Update counts its hunks, any other row 0 or 1 of 1.
	Selected, Total int
	// Glyph is the row's selection glyph, as [Row.String] draws it: "✓" when every change
	// of the row is selected, "◐" when some are, "✗" when none is. Front ends show it so
	// that every surface marks selection alike.
	Glyph string
	// Added and Removed count lines: of the selected hunks for an Update's file row, of the
	// whole change for an Add, Delete or Move, of the hunk for a hunk row.
	Added, Removed int
	// Counts is the row's counts as the review shows them: a hunk "+a −d", an Add
	// "+N", a Delete "−N", a Move "+A −D" ("" for a pure rename), an Update "S/T" and,
	// when something is selected, "S/T · +A −D". The minus sign is U+2212.
	Counts string
	// Folded is the row's fold state; a folded row shows no Lines.
	Folded bool
	// Fuzzy says how a hunk that did not match exactly was matched, in the words of the
	// result ("ignoring trailing whitespace", "ignoring surrounding whitespace",
	// "normalizing typographic punctuation"); for a Move row, its loosest hunk. Empty for
	// an exact match.
	Fuzzy string
	// Revised is set when a person revised the change in review: "· edited".
	Revised bool
	// Feedback is the row's staged feedback.
	Feedback string
	// Dimmed is set when nothing of the row is selected: render it without tint.
	Dimmed bool
	// Lines are the diff lines shown under the row, with their gutter numbers: a hunk's
	// lines, an expanded Add's content, an expanded Delete's baseline, an expanded Move's
	// hunks. An Update's file row has none: its hunks are rows of their own.
	Lines []DiffLine
}

// A DiffLine is one line of a diff as the review shows it.
type DiffLine struct {
	// Kind is LineContext, LineRemove or LineAdd, for tinting.
	Kind LineKind
	// Num is the gutter number: the baseline line of a context or removed line, the
	// new-file line of an added line; 0 when unknown.
	Num int
	// Old and New are the line's numbers in the baseline and in the new file, for a
	// front end with two gutter columns; 0 on the side the line is not on, or unknown.
	Old, New int
	// Text is the line without its marker.
	Text string
	// Heading is set on a Move hunk's "@@ ANCHOR" line, which is not a diff line.
	Heading bool
}

// String renders the line as "   NNNNN M │ TEXT": the number right-aligned in 5 columns,
// the marker ('+', '-' or ' ').
func (l DiffLine) String() string {
	if l.Heading {
		return "   " + l.Text
	}
	num := ""
	if l.Num > 0 {
		num = fmt.Sprint(l.Num)
	}
	return fmt.Sprintf("   %5s %c │ %s", num, rune(l.Kind), l.Text)
}

// String renders the row line, e.g. "▶ ◐ M a.go · 1/2 · +1 −1" or
// "    ✓ @@ func main · +1 −1 · fuzzy". Counts use the minus sign U+2212.
func (r Row) String() string {
	var b strings.Builder
	if r.isHunk() {
		fmt.Fprintf(&b, "    %s %s", r.Glyph, strings.TrimRight("@@ "+r.Label, " "))
	} else {
		fold := "▼"
		if r.Folded {
			fold = "▶"
		}
		fmt.Fprintf(&b, "%s %s %s %s", fold, r.Glyph, r.Status, r.Path)
	}
	if r.Counts != "" {
		b.WriteString(" · " + r.Counts)
	}
	if r.Fuzzy != "" {
		b.WriteString(" · fuzzy")
	}
	if r.Revised {
		b.WriteString(" · edited")
	}
	if r.isHunk() && r.Folded {
		b.WriteString(" …")
	}
	if r.Feedback != "" {
		b.WriteString(" ✎")
	}
	return b.String()
}

// countText computes Row.Counts.
func (r Row) countText() string {
	switch {
	case r.isHunk():
		return counts(r.Added, r.Removed)
	case r.Status == "A":
		return fmt.Sprintf("+%d", r.Added)
	case r.Status == "D":
		return fmt.Sprintf("−%d", r.Removed)
	case r.Status == "R" && r.Added+r.Removed == 0:
		return ""
	case r.Status == "R":
		return counts(r.Added, r.Removed)
	case r.Selected == 0:
		return fmt.Sprintf("%d/%d", r.Selected, r.Total)
	}
	return fmt.Sprintf("%d/%d · %s", r.Selected, r.Total, counts(r.Added, r.Removed))
}

func counts(added, removed int) string { return fmt.Sprintf("+%d −%d", added, removed) }

// rows builds the visible rows. s.mu is held.
func (s *Session) rows() []Row {
	var rows []Row
	for i, c := range s.pr.changes {
		rows = append(rows, s.fileRow(i+1, c))
		if c.divisible() && s.expanded[c] {
			rows = append(rows, s.hunkRows(i+1, c)...)
		}
	}
	return rows
}

// finish fills in the fields a row derives from its counts.
func (r Row) finish() Row {
	r.Glyph, r.Counts = r.glyph(), r.countText()
	return r
}

// fileRow builds the row of an operation.
func (s *Session) fileRow(n int, c *change) Row {
	sel, total, added, removed := s.opCounts(c)
	r := Row{Target: Target{File: n}, Status: statusOf(c), Path: c.Op.Path,
		Selected: sel, Total: total, Added: added, Removed: removed, Folded: !s.expanded[c],
		Revised: c.Revised, Feedback: c.Feedback, Dimmed: sel == 0}
	if c.Op.MoveTo != "" {
		r.Path += " → " + c.Op.MoveTo
	}
	loosest := match.Exact
	for _, h := range c.changing() {
		r.Revised = r.Revised || h.Revised
		if c.Op.isMove() {
			loosest = max(loosest, h.Place.Pass)
		}
	}
	r.Fuzzy = loosest.FuzzyName()
	if !r.Folded {
		r.Lines = s.bodyLines(c)
	}
	return r.finish()
}

// statusOf returns an operation's status letter.
func statusOf(c *change) string {
	switch {
	case c.Op.Kind == OpAdd:
		return "A"
	case c.Op.Kind == OpDelete:
		return "D"
	case c.Op.isMove():
		return "R"
	}
	return "M"
}

// bodyLines are the lines an expanded Add, Delete or Move shows.
func (s *Session) bodyLines(c *change) []DiffLine {
	var out []DiffLine
	switch {
	case c.Op.Kind == OpAdd:
		for i, l := range c.Op.Lines {
			out = append(out, DiffLine{Kind: LineAdd, Num: i + 1, New: i + 1, Text: l})
		}
	case c.Op.Kind == OpDelete:
		for i, l := range s.pr.displayLines(c) {
			out = append(out, DiffLine{Kind: LineRemove, Num: i + 1, Old: i + 1, Text: l})
		}
	case c.Op.isMove():
		starts, base := gutterStarts(c), s.pr.displayLines(c)
		for _, h := range c.changing() {
			for _, a := range h.chain() {
				out = append(out, DiffLine{Heading: true, Text: "@@ " + a})
			}
			out = append(out, hunkLines(h, starts[h], base)...)
		}
	}
	return out
}

// hunkRows builds the rows of an expanded Update's changing hunks.
func (s *Session) hunkRows(n int, c *change) []Row {
	starts := gutterStarts(c)
	var base []string // the baseline's lines, split once for all unfolded hunks
	var rows []Row
	for k, h := range c.changing() {
		added, removed := h.counts()
		r := Row{Target: Target{File: n, Hunk: k + 1}, Label: c.label(h),
			Total: 1, Added: added, Removed: removed, Folded: s.folded[h], Fuzzy: h.Place.Pass.FuzzyName(),
			Revised: h.Revised, Feedback: h.Feedback, Dimmed: !h.Selected}
		if h.Selected {
			r.Selected = 1
		}
		if !r.Folded {
			if base == nil {
				base = s.pr.displayLines(c)
			}
			r.Lines = hunkLines(h, starts[h], base)
		}
		rows = append(rows, r.finish())
	}
	return rows
}

// span is where a hunk starts in the baseline and in the new file, 1-based.
type span struct{ old, new int }

// gutterStarts computes each hunk's baseline and new-file start (R3, mevedel §2.7). Hunks
// are walked in baseline order, and every earlier hunk shifts the new-file numbers,
// selected or not: the numbers stay put while a person toggles hunks, and read as the file
// would be with everything applied.
func gutterStarts(c *change) map[*hunkChange]span {
	hs := slices.Clone(c.Hunks)
	slices.SortStableFunc(hs, func(a, b *hunkChange) int { return cmp.Compare(a.Place.Start, b.Place.Start) })
	out := make(map[*hunkChange]span, len(hs))
	offset := 0
	for _, h := range hs {
		out[h] = span{old: h.Place.Start + 1, new: h.Place.Start + 1 + offset}
		added, removed := h.counts()
		offset += added - removed
	}
	return out
}

// hunkLines numbers a hunk's lines: context and removed lines by the baseline, added
// lines by the new file. Context and removed lines show the file's own text, which is
// what is kept or removed: after a fuzzy match it differs from the payload's.
// Trailing blank context the file does not have is left out.
func hunkLines(h *hunkChange, at span, base []string) []DiffLine {
	lines := h.Lines[:len(h.Lines)-h.Place.Trimmed]
	out := make([]DiffLine, 0, len(lines))
	old, nw := at.old, at.new
	fileText := func(l Line) string {
		if old >= 1 && old <= len(base) {
			return base[old-1]
		}
		return l.Text
	}
	for _, l := range lines {
		switch l.Kind {
		case LineAdd:
			out = append(out, DiffLine{Kind: LineAdd, Num: nw, New: nw, Text: l.Text})
			nw++
		case LineRemove:
			out = append(out, DiffLine{Kind: LineRemove, Num: old, Old: old, Text: fileText(l)})
			old++
		default:
			out = append(out, DiffLine{Kind: LineContext, Num: old, Old: old, New: nw, Text: fileText(l)})
			old++
			nw++
		}
	}
	return out
}

// labelColumns is the widest a hunk label may be, in display columns.
const labelColumns = 48

// label returns a hunk's label: its anchor, else the section heading at or above
// its first baseline line, else "~N".
func (c *change) label(h *hunkChange) string {
	if h.Anchor != "" {
		return show.TruncateColumns(chainLabel(h.chain()), labelColumns)
	}
	if c.text != nil {
		if sec := section(c.text, h.Place.Start); sec != "" {
			return show.TruncateColumns(sec, labelColumns)
		}
	}
	return fmt.Sprintf("~%d", h.Place.Start+1)
}

// section finds a diff-style section heading: walking up from line start (included), the
// first non-empty line that does not start with a space, a tab or a closing bracket.
func section(t *lines.Text, start int) string {
	for i := min(start, t.Count()-1); i >= 0; i-- {
		l := t.Line(i)
		if l != "" && !strings.ContainsRune(" \t)]}", rune(l[0])) {
			return strings.TrimRight(l, " \t")
		}
	}
	return ""
}
