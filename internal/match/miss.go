package match

// Reason says why a hunk could not be placed. NotFound and Ambiguous are the two a
// caller's error reports; the others say more precisely which of the two it is, each
// calling for its own remedy.
type Reason int

const (
	// NotFound: the hunk's context and removed lines were not found where it may go:
	// nowhere in the text, or not below its "@@ TEXT" anchor.
	NotFound Reason = iota + 1
	// Ambiguous: the lines occur at more than one place that no rule can choose between.
	Ambiguous
	// AnchorNotFound: no line starts with the "@@ TEXT" anchor. A kind of NotFound.
	AnchorNotFound
	// AnchorAmbiguous: several lines start with the anchor. A kind of Ambiguous.
	AnchorAmbiguous
	// HintPastEnd: an insertion's "@@ N" line hint lies beyond the end of the file. A
	// kind of NotFound.
	HintPastEnd
	// AboveAnchor: the hunk's lines occur, but only at or above its "@@ TEXT" anchor
	// line, and a hunk must lie strictly below its anchor. A kind of NotFound.
	AboveAnchor
	// OnAnchor: the hunk's first line repeats its anchor's line and its lines lie there
	// (Lines), as well as lower down (HunkLines): a hunk must lie strictly below its
	// anchor, yet the place below is not the one the hunk names. A kind of Ambiguous.
	OnAnchor
	// OutsideBlock: the hunk's anchor names one line, which opens a body (a class, a
	// function, a section) that ends at BlockEnd, and the hunk's lines occur only past
	// it (Lines): in the body of a later line the anchor's text names too, a copy of the
	// anchored body, or while the anchored body holds them edited (Near). The anchor
	// says the hunk lies in its own body, so that body was likely edited since the
	// patch was written. A kind of NotFound.
	OutsideBlock
	// BlankContext: the hunk's only context is the empty lines that end it, which may
	// be the lines it is inserted above (at Lines) or the blank line a model leaves
	// before the next marker (the hunk then goes before line InsertAt); the two give
	// different files. A kind of Ambiguous.
	BlankContext
)

// A Miss is why a hunk could not be placed, as facts: the reason and the lines and
// counts that reason names. Lines are 1-based, and a list holds the first few in text
// order (at most [Listed]) and counts the rest, so a Miss stays small however many lines
// a hostile text repeats. It holds no words: the caller says what it means.
type Miss struct {
	Reason Reason
	// Anchor is, for an anchor of a chain, the one at fault, and Outer the anchor above
	// it, if any.
	Anchor, Outer string
	// Hint is, for HintPastEnd, the hunk's line hint.
	Hint int
	// Lines are the candidates: where the lines occur (Ambiguous, AboveAnchor), the lines
	// the anchor names (AnchorAmbiguous), or the lines of the anchor above it
	// (AnchorNotFound). More is how many candidates there are beyond Lines; MoreCapped
	// reports that counting them stopped at its budget, so More is a lower bound.
	Lines      []int
	More       int
	MoreCapped bool
	// AnchorLine is, for AboveAnchor and OutsideBlock, the line the anchor named.
	AnchorLine int
	// BlockEnd is, for OutsideBlock, the last line of the body the anchor line opens.
	BlockEnd int
	// HunkLines are, for an AnchorAmbiguous that the hunk's lines could not settle, the
	// first few places those lines occur, and for OnAnchor the place below the anchor;
	// HunkMore and HunkCapped count the rest as More and MoreCapped do.
	HunkLines  []int
	HunkMore   int
	HunkCapped bool
	// FileLines is, for HintPastEnd and BlankContext, the number of lines of the text.
	FileLines int
	// Pass is the pass at which an ambiguity was found.
	Pass Pass
	// AppliedAt is, for a NotFound that [Placer.Explain] explained, the line where the
	// hunk's new side occurs: the hunk looks applied already. 0 otherwise.
	AppliedAt int
	// Near is, for a NotFound that [Placer.Explain] explained and that does not look
	// applied, the region of the text most like the hunk; nil when none is like it. For
	// an OutsideBlock, it is the region of the anchored body that holds the hunk's lines
	// edited, or nil when the copy is under the anchor's own text.
	Near *NearMiss
	// InsertAt is, for BlankContext, the 1-based line the hunk is inserted before when
	// its empty lines are read as a separator (one past the last line: at the end).
	InsertAt int
	// Occurs is, for a NotFound that [Placer.Explain] explained and found nothing like,
	// whether some line of the hunk occurs in the text all the same: so often that no
	// region stands out.
	Occurs bool
	// Unexplained is set on a NotFound that [Placer.Explain] left without a search for the
	// closest region: the file's budget of such searches was spent on earlier misses.
	Unexplained bool
}

// missing reports whether the hunk was not found where it may go, so a looser attempt
// (unanchored End of File, trailing blank lines trimmed) may still place it.
func (m *Miss) missing() bool { return m.Reason == NotFound || m.Reason == AboveAnchor }
