package applypatch

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/afero"
	"golang.org/x/text/encoding"

	"github.com/applypatch/applypatch/internal/diff"
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/overlap"
	"github.com/applypatch/applypatch/internal/turns"
)

// regionTransition is the Update (or Move) between an edited state and the content its
// edit applies to, built from the edit's own regions rather than by comparing the two:
// the hunks are exactly what the change did (inverse ones for an undo), with three lines
// of context. An undo never needs the edited bytes: a file holds them when its size and
// CRC-32C are theirs. No hunk is tied to the end of the file: that is where it lay when
// the change was made, but lines appended since may repeat it there.
func regionTransition(s *history.Store, e *history.Entry, src, dst string, edited, base history.State, undo bool,
	enc encoding.Encoding, encName string) (*Operation, *restoreSpec, error) {
	b, err := s.Content(e, base.Blob)
	if err != nil {
		return nil, nil, err
	}
	text, _, err := lines.Decode(b, enc, encName)
	if err != nil {
		return nil, nil, err
	}
	bt := lines.Split(text)
	op := &Operation{Kind: OpUpdate, Path: src}
	if dst != src {
		op.MoveTo = dst
	}
	spec := &restoreSpec{to: b, mode: base.Mode, size: edited.Size, crc: edited.CRC,
		rebuild: func() ([]byte, error) { return rebuild(s, e, edited) }}
	if !undo {
		if spec.to, err = rebuild(s, e, edited); err != nil {
			return nil, nil, err
		}
		spec.from, spec.mode = b, edited.Mode
	}
	regs := edited.Edit
	shift, prev, taken := 0, 0, 0 // taken: the lines up to it are in a hunk already
	for i, r := range regs {
		if r.End > bt.Count() || r.Start < prev || r.End < r.Start {
			return nil, nil, errors.New("the history holds an edit that does not fit its file")
		}
		next := bt.Count()
		if i+1 < len(regs) {
			next = regs[i+1].Start
		}
		lead, trail := max(taken, r.Start-revertContext), min(next, r.End+revertContext)
		h := Hunk{Lines: appendContext(nil, bt, lead, r.Start)}
		at, added := r.Start, 0
		for _, o := range r.Ops {
			kind := LineKind(o.Kind)
			switch kind {
			case LineContext, LineRemove:
				h.Lines = append(h.Lines, Line{Kind: inverse(kind, undo), Text: bt.Line(at)})
				at++
			case LineAdd:
				h.Lines = append(h.Lines, Line{Kind: inverse(kind, undo), Text: o.Text})
				added++
			}
		}
		h.Lines = removalsFirst(appendContext(h.Lines, bt, r.End, trail))
		start := lead
		if undo {
			start += shift
		}
		op.Hunks = append(op.Hunks, h)
		spec.starts = append(spec.starts, start)
		shift += added - (r.End - r.Start) + countKind(r.Ops, LineContext)
		prev, taken = r.End, trail
	}
	return op, spec, nil
}

// revertContext is how many lines of context an undo's or a redo's hunk carries on each
// side of what the change did; a hunk's leading context stops where the hunk before it
// ends, so no two hunks hold the same lines (the search places each past the one before).
const revertContext = 3

// appendContext appends lines from to to of t as context lines.
func appendContext(ls []Line, t *lines.Text, from, to int) []Line {
	for l := from; l < to; l++ {
		ls = append(ls, Line{Kind: LineContext, Text: t.Line(l)})
	}
	return ls
}

// inverse is a line's kind in an undo's hunk: what the change added is removed, and back.
func inverse(k LineKind, undo bool) LineKind {
	switch {
	case !undo || k == LineContext:
		return k
	case k == LineAdd:
		return LineRemove
	}
	return LineAdd
}

// countKind counts the ops of a kind.
func countKind(ops []history.Op, k LineKind) int {
	n := 0
	for _, o := range ops {
		if LineKind(o.Kind) == k {
			n++
		}
	}
	return n
}

// removalsFirst orders each run of changed lines as a diff shows it, its removed lines
// before its added ones: an undo's inverted lines otherwise show what it adds first.
func removalsFirst(ls []Line) []Line {
	for i := 0; i < len(ls); {
		if ls[i].Kind == LineContext {
			i++
			continue
		}
		j := i
		for j < len(ls) && ls[j].Kind != LineContext {
			j++
		}
		slices.SortStableFunc(ls[i:j], func(a, b Line) int {
			return cmpKind(a.Kind) - cmpKind(b.Kind)
		})
		i = j
	}
	return ls
}

// cmpKind puts removed lines before added ones.
func cmpKind(k LineKind) int {
	if k == LineRemove {
		return 0
	}
	return 1
}

// transition is the operation that takes src, holding from, to to at dst: an Add, a
// Delete, an Update or a Move with the hunks between the two contents.
func transition(s *history.Store, e *history.Entry, src, dst string, from, to history.State, enc encoding.Encoding, encName string) (*Operation, *restoreSpec, error) {
	content := func(st history.State) ([]byte, error) {
		if !st.Exists {
			return nil, nil
		}
		return rebuild(s, e, st)
	}
	if from.Exists && to.Exists && from.Edit != nil && from.Base == to.Blob {
		return regionTransition(s, e, src, dst, from, to, true, enc, encName) // an undo of an Update
	}
	if from.Exists && to.Exists && to.Edit != nil && to.Base == from.Blob {
		return regionTransition(s, e, src, dst, to, from, false, enc, encName) // its redo
	}
	x, err := content(from)
	if err != nil {
		return nil, nil, err
	}
	y, err := content(to)
	if err != nil {
		return nil, nil, err
	}
	spec := &restoreSpec{from: x, to: y, mode: to.Mode, fromMode: from.Mode}
	switch {
	case !from.Exists && !to.Exists:
		return nil, nil, nil
	case !from.Exists:
		op := &Operation{Kind: OpAdd, Path: dst}
		if text, _, err := lines.Decode(y, enc, encName); err == nil {
			op.Lines = lines.Split(text).Strings()
		}
		return op, spec, nil
	case !to.Exists:
		return &Operation{Kind: OpDelete, Path: src}, spec, nil
	}
	op := &Operation{Kind: OpUpdate, Path: src}
	if dst != src {
		op.MoveTo = dst
	}
	a, _, errA := lines.Decode(x, enc, encName)
	b, _, errB := lines.Decode(y, enc, encName)
	if (errA != nil || errB != nil) && src == dst {
		// Binary, or not in the file's encoding, on one side: the change replaced the file
		// whole (a Delete then an Add), and its revert does the same, byte for byte, where
		// the file still holds exactly what it expects.
		spec.rewrite = true
		add := &Operation{Kind: OpAdd, Path: dst}
		if errB == nil {
			add.Lines = lines.Split(b).Strings()
		}
		return add, spec, nil
	}
	if errA != nil {
		return nil, nil, errA
	}
	if errB != nil {
		return nil, nil, errB
	}
	at, bt := lines.Split(a), lines.Split(b)
	al := at.Strings()
	for _, h := range diff.Hunks(al, bt.Strings(), 3) {
		var hk Hunk // never tied to the end of the file, which lines appended since may repeat
		for _, l := range h.Lines {
			hk.Lines = append(hk.Lines, Line{Kind: LineKind(l.Kind), Text: l.Text})
		}
		op.Hunks = append(op.Hunks, hk)
		spec.starts = append(spec.starts, h.OldStart)
	}
	if len(op.Hunks) == 0 && op.MoveTo == "" && !slices.Equal(x, y) {
		return nil, nil, fmt.Errorf("the change differs only in its line endings or encoding, which hunks cannot express")
	}
	return op, spec, nil
}

// A fileTransition is one file's part of a reversal: the path it takes from one state to
// the other, in the encoding declared for it, and the operation and restore that do it.
type fileTransition struct {
	path, src, dst string
	from, to       history.State
	names          [2]string
	enc            encoding.Encoding
	encName        string

	op   *Operation
	spec *restoreSpec
	err  error
}

// transitionsSplitMin is the fewest files whose transitions are worth working out on
// two goroutines.
const transitionsSplitMin = 8

// transitions works out each file's transition: its bytes read from the history,
// decoded and split, its inverse hunks built. They do not depend on one another, so a
// reversal of many files works them out on two goroutines where the store's filesystem,
// storeFs, allows it (overlap.Worth), each file's outcome kept in its place.
func transitions(s *history.Store, e *history.Entry, ts []*fileTransition, storeFs afero.Fs) {
	each := func(ts []*fileTransition) {
		for _, t := range ts {
			t.op, t.spec, t.err = transition(s, e, t.src, t.dst, t.from, t.to, t.enc, t.encName)
		}
	}
	if !overlap.Worth(storeFs, len(ts), transitionsSplitMin) || s.Loaded(e) != nil {
		each(ts)
		return
	}
	turns.Halves(len(ts), func(lo, hi int) { each(ts[lo:hi]) })
}
