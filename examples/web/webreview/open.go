package webreview

import "github.com/applypatch/applypatch"

// smallPatch is the most diff lines a patch may show for the page to open it entirely.
const smallPatch = 80

// openOnLoad unfolds the review for its first look, so the page opens on a diff: a small
// patch entirely, a larger one with every file expanded but only its first changing hunk
// open (the others folded, one row each, a click away).
func openOnLoad(s *applypatch.Session) {
	if s.Fold(applypatch.Target{}, false) != nil {
		return
	}
	rows := s.View().Rows
	lines := 0
	for _, r := range rows {
		lines += len(r.Lines)
	}
	if lines <= smallPatch {
		return
	}
	for _, r := range rows {
		if r.Target.Hunk > 0 && r.Target.Hunk > 1 {
			s.Fold(r.Target, true)
		}
	}
}
