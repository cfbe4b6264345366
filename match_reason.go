package applypatch

import (
	"fmt"

	"github.com/applypatch/applypatch/internal/match"
	"github.com/applypatch/applypatch/internal/show"
)

// reason words why the hunk could not be placed, and what to send instead: the text after
// the hunk's place in Error.
func (e *MatchError) reason() string {
	if r := e.editReason(); r != "" {
		return r
	}
	switch e.why {
	case match.AnchorNotFound:
		if e.Outer != "" {
			return fmt.Sprintf("no line below the anchor '@@ %s' (%s %s) starts with the anchor '@@ %s'; "+
				"name a line that exists inside '%s', or drop the anchor.",
				e.Outer, show.PluralWord(len(e.Lines), "line", "lines"), show.JoinInts(e.Lines), e.Anchor, e.Outer)
		}
		return fmt.Sprintf("no line starts with the anchor '@@ %s'; name a line that exists above the hunk, or drop the anchor.", e.Anchor)
	case match.AnchorAmbiguous:
		if len(e.HunkLines) > 0 && e.Outer != "" {
			return fmt.Sprintf("the anchor '@@ %s' names %s lines (%s) below '@@ %s', and the hunk's lines (at %s %s) "+
				"do not lie inside the block of exactly one of them; add context lines that make the hunk unique, or "+
				"make the anchors name only the lines that enclose it.",
				e.Anchor, e.places(), e.lines(), e.Outer, show.PluralWord(len(e.HunkLines)+e.hunkMore, "line", "lines"),
				e.hunkLines())
		}
		if len(e.HunkLines) > 0 {
			return fmt.Sprintf("the anchor '@@ %s' names %s lines (%s) and the hunk's lines (at %s %s) do not lie "+
				"inside the block of exactly one of them; add the line that encloses the right one as an anchor "+
				"above it ('@@ class Name' then '@@ %s'), or context lines that make the hunk unique.",
				e.Anchor, e.places(), e.lines(), show.PluralWord(len(e.HunkLines)+e.hunkMore, "line", "lines"),
				e.hunkLines(), e.Anchor)
		}
		return fmt.Sprintf("the anchor '@@ %s' names %s lines (%s); use a longer anchor that names one line.",
			e.Anchor, e.places(), e.lines())
	case match.AboveAnchor:
		return fmt.Sprintf("the hunk's lines occur only at %s %s, not below the anchor '@@ %s' (line %d); "+
			"the anchor must name a line above the hunk, so name one there, or drop the anchor.",
			show.PluralWord(len(e.Lines)+e.More, "line", "lines"), e.lines(), e.Anchor, e.AnchorLine)
	case match.OutsideBlock:
		where := "in a later copy of that body"
		if e.near != nil {
			where = "while the body holds lines like them, edited (shown below)"
		}
		return fmt.Sprintf("the anchor '@@ %s' (line %d) opens a body that ends at line %d, and the hunk's lines "+
			"are not inside it: they occur only further down, at line %d, %s. The body "+
			"may have changed since the patch was written: re-read it and resend the hunk with its lines as they are "+
			"now; if the change belongs at line %d, name the line that encloses it there as the anchor instead.",
			e.Anchor, e.AnchorLine, e.blockEnd, e.Lines[0], where, e.Lines[0])
	case match.OnAnchor:
		return fmt.Sprintf("the hunk's first line repeats the anchor '@@ %s': its lines start on the anchor's own "+
			"%s %s, and occur again below it, at line %d; the anchor must name a line above the hunk, so drop "+
			"the repeated line from the hunk (the anchor already names it), or name a line above it as the anchor.",
			e.Anchor, show.PluralWord(len(e.Lines)+e.More, "line", "lines"), e.lines(), e.HunkLines[0])
	case match.BlankContext:
		where := fmt.Sprintf("before line %d", e.insertAt)
		if e.insertAt > e.FileLines {
			where = "at the end of the file"
		}
		return fmt.Sprintf("the hunk's only context is the empty line at its end, which reads two ways that give "+
			"different files: as the line to insert above (%s %s), or as a blank line left before the next marker, "+
			"when the '+' lines go %s. Add a context line that is not empty, or drop the empty line for the second.",
			show.PluralWord(len(e.Lines)+e.More, "line", "lines"), e.lines(), where)
	case match.HintPastEnd:
		n := e.FileLines
		return fmt.Sprintf("the line hint '@@ %d' is past the end of the file, which has %d %s; "+
			"use '@@ N' with N at most %d, or drop the hint to append at the end.", e.Hint, n, show.PluralWord(n, "line", "lines"), n+1)
	}
	switch e.Reason {
	case MatchNotFound:
		if e.appliedAt > 0 {
			return fmt.Sprintf("the hunk looks already applied: the file lacks its context and '-' lines "+
				"but holds its context and '+' lines, from line %d. Re-read the file; if the change is "+
				"there, leave this hunk out.", e.appliedAt)
		}
		if e.unexplained {
			return "the hunk's context and '-' lines were not found together in the file (only the file's first " +
				"hunks that miss are compared with it further). Re-read the file and resend the hunk with its " +
				"context and '-' lines copied exactly."
		}
		if e.near == nil && e.occurs {
			return "the hunk's context and '-' lines were not found together in the file; some of them occur, but so " +
				"often that no region stands out as the closest. Re-read the file and resend the hunk with its context " +
				"and '-' lines copied exactly, including a line found only where it goes."
		}
		if e.near == nil {
			return "none of the hunk's context or '-' lines occur in the file. Re-read the file (is it the right path?) and resend the hunk with lines copied from it."
		}
		return "the hunk's context and '-' lines were not found together in the file. Re-read the file and resend the hunk with its context and '-' lines copied exactly."
	case MatchAmbiguous:
		if e.Hint > 0 {
			return fmt.Sprintf("the hunk's lines occur at %s places (lines %s) and its line hint '@@ %d' is as near "+
				"to more than one; add context lines that make it unique, or an '@@ TEXT' line naming a unique line above it.",
				e.places(), e.lines(), e.Hint)
		}
		if e.Anchor != "" {
			return fmt.Sprintf("the hunk's lines occur at %s places below the anchor '@@ %s' (lines %s), and neither "+
				"lies alone inside the anchor's block; add context lines that make it unique, or an '@@ TEXT' line "+
				"naming a unique line nearer above it.", e.places(), e.Anchor, e.lines())
		}
		return fmt.Sprintf("the hunk's lines occur at %s places (lines %s) and nothing decides between them; "+
			"add context lines that make it unique, an '@@ TEXT' line naming a unique line above it, or a line hint '@@ N'.",
			e.places(), e.lines())
	case MatchOverlap:
		if e.Revision {
			return fmt.Sprintf("the hunk no longer applies on top of the revision of this file (it would change "+
				"lines %d to %d again); deselect it, or revise the file again.", e.Start, e.End)
		}
		if e.End < e.Start {
			return fmt.Sprintf("the hunk inserts the lines hunk %d inserts, at the same place (before line %d): "+
				"it repeats that hunk; drop one of the two.", e.Other, e.Start)
		}
		return fmt.Sprintf("the hunk changes lines that hunk %d also changes (it changes lines %d to %d); "+
			"merge the two hunks into one, or give each its own lines.", e.Other, e.Start, e.End)
	}
	return "the hunk cannot be placed"
}
