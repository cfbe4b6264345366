package applypatch

import "github.com/applypatch/applypatch/internal/envelope"

// chain adds the "@@" line h to the hunk cur that an "@@" line directly above opened:
// an anchor joins the chain below cur's anchors and a line hint is kept. A bare "@@"
// after anchors or a hint ends the chain (the hunk's lines follow it), as the OpenAI
// Agents SDKs write it; any other bare "@@", or an "@@" line after the chain ended,
// opens a hunk of its own, so the one above has no lines.
func (p *parser) chain(cur *Hunk, h Hunk, l envelope.Line) error {
	bare, curBare := h.Hint == 0 && h.Anchor == "", cur.Hint == 0 && cur.Anchor == ""
	switch {
	case bare && !curBare && !p.ended:
		p.ended = true
	case bare || curBare || p.ended:
		return p.errf(l, "the previous '@@' hunk has no lines; give every hunk context, '-' or '+' lines")
	case h.Hint > 0 && cur.Hint > 0:
		return p.errf(l, "the hunk already has the line hint '@@ %d'; give a hunk at most one '@@ N' line", cur.Hint)
	}
	if h.Hint > 0 {
		cur.Hint = h.Hint
	}
	if h.Anchor != "" {
		if cur.Anchor != "" {
			cur.Within = append(cur.Within, cur.Anchor)
		}
		cur.Anchor = h.Anchor
	}
	return nil
}
